"""Heat's JSON back into views: what thermik-api's own formatting renders parses back to the
same view, and what only real Heat sends (no ``resource_type`` in event lists) is inferred."""

from __future__ import annotations

import dataclasses
import datetime

from thermik.api import formatting
from thermik.api.boundary import (
    EventQuery,
    EventView,
    ListQuery,
    OutputView,
    ParameterInfo,
    ResourceView,
    SortDir,
    StackIdentity,
    StackPreview,
    StackRequest,
    StackUpdate,
    StackView,
    ValidationView,
)
from thermik.api.links import Links
from thermik.api.v1.validate import validation_document
from thermik.remote import bodies, views

WHEN = datetime.datetime(2026, 12, 2, 15, 4, 5, tzinfo=datetime.UTC)
STACK = StackIdentity("web", "7a1c0e5e-92b8-4a57-9d3e-3c1c8b3e0f10")
NESTED = StackIdentity("web-group-x", "0b6c5c2e-8f0a-4a41-b1a6-58bb7e2f3d44")
LINKS = Links("http://heat.example:8004/v1", "p1")


def test_a_shown_stack_parses_back_to_its_view() -> None:
    view = StackView(
        identity=STACK,
        action="ROLLBACK",
        status="IN_PROGRESS",
        status_reason="a reason",
        description="d",
        template_description="td",
        creation_time=WHEN,
        updated_time=WHEN,
        parameters={"size": "2"},
        outputs=(OutputView("url", "the url", "http://x"), OutputView("bad", None, None, "boom")),
        disable_rollback=False,
        timeout_mins=5,
        tags=("a", "b"),
        owner="alice",
        parent="parent-id",
    )
    assert views.stack(formatting.stack_detail(view, LINKS)) == view


def test_a_listed_stack_has_no_outputs() -> None:
    view = StackView(identity=STACK, action="CREATE", status="COMPLETE", creation_time=WHEN)
    parsed = views.stack(formatting.stack_summary(view, LINKS))
    assert parsed.outputs is None
    assert (parsed.identity, parsed.action, parsed.status) == (STACK, "CREATE", "COMPLETE")


def test_a_resource_of_a_nested_stack_names_both_stacks() -> None:
    view = ResourceView(
        name="server",
        stack=NESTED,
        type="OS::Nova::Server",
        action="CREATE",
        status="FAILED",
        status_reason="quota",
        physical_resource_id="srv-1",
        creation_time=WHEN,
        required_by=("port",),
        description="",
        attributes={"name": "vm"},
        nested_stack=StackIdentity("inner", "1d2e3f40-0000-4000-8000-000000000001"),
        parent_resource="group",
    )
    document = formatting.resource(view, LINKS, detail=True)
    assert views.resource(document, STACK) == view


def test_events_of_a_list_without_types_find_the_stacks_own() -> None:
    stack_event = EventView(
        id="e1",
        stack=STACK,
        resource_name=STACK.name,
        resource_type="OS::Heat::Stack",
        action="CREATE",
        status="COMPLETE",
        physical_resource_id=STACK.id,
        event_time=WHEN,
    )
    resource_event = EventView(
        id="e2",
        stack=STACK,
        resource_name="server",
        resource_type="OS::Nova::Server",
        action="CREATE",
        status="IN_PROGRESS",
        event_time=WHEN,
    )
    listed = [formatting.event(e, LINKS, detail=False) for e in (stack_event, resource_event)]
    parsed = [views.event(document, STACK) for document in listed]
    assert [e.resource_type for e in parsed] == ["OS::Heat::Stack", ""]
    assert parsed[0] == stack_event
    detailed = formatting.event(resource_event, LINKS, detail=True)
    shown = dataclasses.replace(resource_event, resource_properties={})
    assert views.event(detailed, STACK) == shown


def test_a_validate_result_parses_back() -> None:
    view = ValidationView(
        description="d",
        parameters={
            "size": ParameterInfo(
                type="Number",
                description="how many",
                label="Size",
                has_default=True,
                default=2,
                no_echo=True,
                tags=("t",),
                constraints={"MinValue": 1},
            )
        },
        parameter_groups=({"label": "g", "parameters": ["size"]},),
        environment={"parameters": {}},
    )
    assert views.validation(validation_document(view)) == view


def test_heat_timestamps_with_and_without_zone() -> None:
    assert views.timestamp("2026-12-02T15:04:05Z") == WHEN
    assert views.timestamp("2026-12-02T15:04:05") == WHEN
    assert views.timestamp("2026-12-02T15:04:05.000001+00:00") == WHEN.replace(microsecond=1)
    assert views.timestamp(None) is None
    assert views.timestamp("yesterday") is None


def test_stack_urls_name_the_stack_even_quoted() -> None:
    href = "http://h/v1/p/stacks/my%20stack/abc/resources/r"
    assert views.identity_of_url(href) == StackIdentity("my stack", "abc")
    assert views.identity_of_url("http://h/v1/p/stacks/only-a-name") is None


def test_request_bodies_are_heatclients() -> None:
    request = StackRequest(
        name="web",
        template={"heat_template_version": "2018-08-31"},
        parameters={"size": 2},
        files={"f": "x"},
        environment_files=("file:///env.yaml",),
        disable_rollback=True,
        tags=("a", "b"),
    )
    assert bodies.stack_body(request) == {
        "stack_name": "web",
        "template": {"heat_template_version": "2018-08-31"},
        "parameters": {"size": 2},
        "files": {"f": "x"},
        "environment_files": ["file:///env.yaml"],
        "disable_rollback": True,
        "tags": "a,b",
    }
    update = StackUpdate(StackRequest(), existing=True, clear_parameters=("size",), converge=True)
    assert bodies.update_body(update) == {
        "parameters": {},
        "files": {},
        "clear_parameters": ["size"],
        "converge": True,
    }


def test_query_strings() -> None:
    query = ListQuery(
        filters={"status": ("COMPLETE", "FAILED")},
        sort_keys=("name",),
        sort_dir=SortDir.DESC,
        limit=3,
        tags_any=("a", "b"),
        show_nested=True,
    )
    assert bodies.list_params(query) == {
        "status": ["COMPLETE", "FAILED"],
        "sort_keys": "name",
        "sort_dir": "desc",
        "limit": 3,
        "tags_any": "a,b",
        "show_nested": "True",
    }
    events = EventQuery(marker="e1", sort_dir=SortDir.ASC, nested_depth=2)
    assert bodies.event_params(events) == {"sort_dir": "asc", "marker": "e1", "nested_depth": 2}


def test_a_preview_parses_back_with_its_nested_stacks() -> None:
    top = ResourceView(
        name="group", stack=STACK, type="OS::Heat::ResourceGroup", action="INIT", status="COMPLETE"
    )
    inner = ResourceView(
        name="0",
        stack=NESTED,
        type="OS::Heat::TestResource",
        action="INIT",
        status="COMPLETE",
        attributes={"output": None},
        properties={"value": "v"},
        parent_resource="group",
    )
    stack = StackView(identity=StackIdentity("web", "None"), action="", status="")
    document = formatting.stack_preview(StackPreview(stack, (top, (inner,))), LINKS)
    parsed = views.preview(document)
    assert parsed.resources == (dataclasses.replace(top, attributes={}, properties={}), (inner,))
    assert parsed.stack.identity == StackIdentity("web", "None")
