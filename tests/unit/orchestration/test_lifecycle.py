"""A stack's life through the service: create, show, outputs, resources, events, update, delete."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.orchestration.conftest import CTX, OTHER, TEMPLATE, create, request, settle
from thermik.api.boundary import (
    EventQuery,
    ListQuery,
    RequestContext,
    ResourceQuery,
    SortDir,
    StackRequest,
    StackUpdate,
)
from thermik.errors import InvalidRequest, NotFound, ResourceNotFound, StackNotFound
from thermik.orchestration import Orchestrator


def outputs(service: Orchestrator, stack_name: str) -> dict[str, object]:
    view = service.show_stack(CTX, service.identify_stack(CTX, stack_name))
    return {o.key: o.value for o in view.outputs or ()}


def test_create_shows_parameters_outputs_and_state(service: Orchestrator) -> None:
    stack = create(service)
    view = service.show_stack(CTX, stack)
    assert (view.identity, view.description) == (stack, "A small stack")
    assert view.parameters == {"word": "hello", "secret": "s3cret", "size": 8}
    assert view.hidden_parameters == frozenset({"secret"})
    assert (view.owner, view.disable_rollback, view.tags) == ("alice", True, ())
    assert view.creation_time is not None
    assert view.updated_time is None
    found = {o.key: o for o in view.outputs or ()}
    assert (found["echo"].value, found["echo"].description) == ("hello", "What second stored")
    first = service.show_resource(CTX, stack, "first")
    assert found["first_id"].value == first.physical_resource_id is not None
    assert found["broken"].value is None
    assert "list_join" in str(found["broken"].error)
    # An output the template does not describe says so in Heat's words.
    assert found["first_id"].description == "No description given"


def test_the_owner_is_the_user_name_when_the_caller_has_one(service: Orchestrator) -> None:
    keystone_caller = RequestContext(tenant=CTX.tenant, user="3f2a9c", user_name="alice")
    stack = service.create_stack(keystone_caller, StackRequest(name="s1", template=TEMPLATE))
    assert service.show_stack(CTX, stack).owner == "alice"


def test_outputs_listed_unresolved_and_shown_one_by_one(service: Orchestrator) -> None:
    stack = create(service)
    listed = service.list_outputs(CTX, stack)
    assert [(o.key, o.resolved) for o in listed] == [
        ("echo", False),
        ("first_id", False),
        ("broken", False),
    ]
    assert service.show_output(CTX, stack, "echo").value == "hello"
    assert [o.description for o in listed][1] == "No description given"
    assert service.show_output(CTX, stack, "first_id").description == "No description given"
    assert service.show_output(CTX, stack, "broken").error
    with pytest.raises(NotFound, match="Specified output key nope not found"):
        service.show_output(CTX, stack, "nope")
    assert service.show_stack(CTX, stack, resolve_outputs=False).outputs is None


def test_resources_with_state_dependencies_and_attributes(service: Orchestrator) -> None:
    stack = create(service)
    views = {v.name: v for v in service.list_resources(CTX, stack, ResourceQuery())}
    assert set(views) == {"first", "second", "password"}
    assert {(v.action, v.status) for v in views.values()} == {("CREATE", "COMPLETE")}
    assert views["first"].required_by == ("second",)
    assert views["first"].type == "OS::Heat::TestResource"
    shown = service.show_resource(CTX, stack, "second", with_attr=("extra",))
    assert shown.attributes is not None
    assert shown.attributes["output"] == "hello"
    assert "extra" in shown.attributes
    assert "__reference_id__" not in shown.attributes
    only = service.list_resources(
        CTX, stack, ResourceQuery(filters={"type": ("OS::Heat::RandomString",)})
    )
    assert [v.name for v in only] == ["password"]
    with pytest.raises(ResourceNotFound, match=r"The Resource \(nope\) could not be found"):
        service.show_resource(CTX, stack, "nope")


def test_resource_metadata_is_the_templates_resolved(service: Orchestrator) -> None:
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "first": {"type": "OS::Heat::TestResource", "properties": {"value": "v1"}},
            "second": {
                "type": "OS::Heat::None",
                "metadata": {"from": {"get_attr": ["first", "output"]}, "fixed": [1, 2]},
            },
        },
    }
    stack = create(service, template=template)
    assert service.resource_metadata(CTX, stack, "second") == {"from": "v1", "fixed": [1, 2]}
    assert service.resource_metadata(CTX, stack, "first") == {}
    with pytest.raises(ResourceNotFound):
        service.resource_metadata(CTX, stack, "nope")


def test_events_in_order_paged_by_marker(service: Orchestrator) -> None:
    stack = create(service)
    events = service.list_events(CTX, stack, EventQuery())
    stack_events = [e for e in events if e.resource_type == "OS::Heat::Stack"]
    assert (stack_events[0].status, stack_events[-1].status) == ("IN_PROGRESS", "COMPLETE")
    assert events[-1] == stack_events[-1]
    assert stack_events[-1].physical_resource_id == stack.id
    assert stack_events[-1].resource_name == "s1"
    first_two = service.list_events(CTX, stack, EventQuery(limit=2))
    rest = service.list_events(CTX, stack, EventQuery(marker=first_two[-1].id))
    assert [e.id for e in first_two + list(rest)] == [e.id for e in events]
    newest = service.list_events(CTX, stack, EventQuery(sort_dir=SortDir.DESC, limit=1))
    assert newest[0].id == events[-1].id
    of_first = service.list_events(CTX, stack, EventQuery(resource_name="first"))
    assert of_first
    assert {e.resource_name for e in of_first} == {"first"}
    done = service.list_events(CTX, stack, EventQuery(filters={"resource_status": ("COMPLETE",)}))
    assert done
    assert {e.status for e in done} == {"COMPLETE"}
    shown = service.show_event(CTX, stack, "first", of_first[0].id)
    assert shown == of_first[0]
    with pytest.raises(InvalidRequest):
        service.list_events(CTX, stack, EventQuery(marker="no-such-event"))
    with pytest.raises(ResourceNotFound):
        service.list_events(CTX, stack, EventQuery(resource_name="nope"))


def test_events_show_the_resource_properties(service: Orchestrator) -> None:
    # As Heat stores them with each event: the resolved properties the action ran with.
    stack = create(service, parameters={"word": "hi"})

    def properties_of(name: str) -> list[tuple[str, str, dict[str, Any]]]:
        events = service.list_events(CTX, stack, EventQuery(resource_name=name))
        return [(e.action, e.status, dict(e.resource_properties or {})) for e in events]

    created = properties_of("password")
    assert [(action, status) for action, status, _ in created] == [
        ("CREATE", "IN_PROGRESS"),
        ("CREATE", "COMPLETE"),
    ]
    assert all(props["length"] == 8 for _, _, props in created)
    # An optional property left unset is not shown.
    assert all("salt" not in props for _, _, props in created)
    assert {props["value"] for _, _, props in properties_of("first")} == {"hi"}
    template = {**TEMPLATE, "resources": dict(TEMPLATE["resources"])}
    del template["resources"]["password"]
    service.update_stack(
        CTX, stack, StackUpdate(StackRequest(template=template, parameters={"word": "ho"}))
    )
    view = settle(service, stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    updated = [(a, s, p["value"]) for a, s, p in properties_of("first") if a == "UPDATE"]
    assert updated == [("UPDATE", "IN_PROGRESS", "ho"), ("UPDATE", "COMPLETE", "ho")]
    # A delete shows the properties the resource had.
    deleted = [(a, s, p.get("length")) for a, s, p in properties_of("password") if a == "DELETE"]
    assert deleted == [("DELETE", "IN_PROGRESS", 8), ("DELETE", "COMPLETE", 8)]


def test_documents_of_a_stack(service: Orchestrator) -> None:
    stack = create(service, parameters={"word": "hi"})
    assert service.stack_template(CTX, stack) == TEMPLATE
    assert service.stack_environment(CTX, stack)["parameters"] == {"word": "hi"}
    assert service.stack_files(CTX, stack) == {}
    exported = service.export_stack(CTX, stack)
    assert (exported["name"], exported["id"], exported["status"]) == ("s1", stack.id, "COMPLETE")
    assert set(exported["resources"]) == {"first", "second", "password"}
    assert exported["resources"]["first"]["resource_data"] == {"value": "hi"}


def test_update_put_replaces_and_patch_keeps(service: Orchestrator) -> None:
    stack = create(service)
    put = StackUpdate(StackRequest(template=TEMPLATE, parameters={"word": "bye"}))
    service.update_stack(CTX, stack, put)
    view = settle(service, stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE")
    assert outputs(service, "s1")["echo"] == "bye"
    service.update_stack(CTX, stack, StackUpdate(StackRequest(), existing=True))
    settle(service, stack)
    assert outputs(service, "s1")["echo"] == "bye"
    assert service.show_stack(CTX, stack).updated_time is not None
    cleared = StackUpdate(StackRequest(), existing=True, clear_parameters=("word",))
    service.update_stack(CTX, stack, cleared)
    settle(service, stack)
    assert outputs(service, "s1")["echo"] == "hello"
    plain_put = StackUpdate(StackRequest(template=TEMPLATE))
    service.update_stack(CTX, stack, plain_put)
    settle(service, stack)
    assert service.stack_environment(CTX, stack)["parameters"] == {}


def test_update_changes_tags_and_rollback_setting(service: Orchestrator) -> None:
    stack = create(service, tags=("a",))
    update = StackUpdate(StackRequest(template=TEMPLATE, tags=("b", "c"), disable_rollback=False))
    service.update_stack(CTX, stack, update)
    view = settle(service, stack)
    assert (view.tags, view.disable_rollback) == (("b", "c"), False)
    assert [v.identity.name for v in service.list_stacks(CTX, ListQuery(tags=("c",))).items] == [
        "s1"
    ]


def test_a_put_update_without_tags_clears_them_a_patch_keeps_them(service: Orchestrator) -> None:
    stack = create(service, tags=("a",))
    service.update_stack(CTX, stack, StackUpdate(StackRequest(), existing=True))
    assert settle(service, stack).tags == ("a",)
    # As in Heat: a PUT replaces the stack's attributes, tags included.
    service.update_stack(CTX, stack, StackUpdate(StackRequest(template=TEMPLATE)))
    assert settle(service, stack).tags == ()


def test_delete_frees_the_name_and_keeps_the_record(service: Orchestrator) -> None:
    stack = create(service)
    service.delete_stack(CTX, stack)
    view = settle(service, stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE")
    assert view.deletion_time is not None
    with pytest.raises(StackNotFound, match=r"The Stack \(s1\) could not be found"):
        service.identify_stack(CTX, "s1")
    assert service.identify_stack(CTX, stack.id) == stack
    assert service.list_stacks(CTX, ListQuery()).items == ()
    assert len(service.list_stacks(CTX, ListQuery(show_deleted=True)).items) == 1
    again = create(service)
    assert again.id != stack.id


def test_list_stacks_sorted_paged_counted_and_tenant_scoped(service: Orchestrator) -> None:
    for name in ("a", "b", "c"):
        service.create_stack(CTX, request(name))
    service.create_stack(OTHER, request("z"))
    page = service.list_stacks(CTX, ListQuery(sort_keys=("name",), sort_dir=SortDir.ASC))
    assert [v.identity.name for v in page.items] == ["a", "b", "c"]
    first = service.list_stacks(
        CTX, ListQuery(sort_keys=("stack_name",), sort_dir=SortDir.ASC, limit=2, with_count=True)
    )
    assert ([v.identity.name for v in first.items], first.count) == (["a", "b"], 3)
    after = service.list_stacks(
        CTX,
        ListQuery(sort_keys=("name",), sort_dir=SortDir.ASC, marker=first.items[-1].identity.id),
    )
    assert [v.identity.name for v in after.items] == ["c"]
    named = service.list_stacks(CTX, ListQuery(filters={"name": ("b",)}))
    assert [v.identity.name for v in named.items] == ["b"]
    assert page.items[0].description == "A small stack"
    everyone = service.list_stacks(CTX, ListQuery(global_tenant=True))
    assert {v.project for v in everyone.items} == {"tenant1", "tenant2"}
    for name in ("a", "b", "c"):
        settle(service, service.identify_stack(CTX, name))
    settle(service, service.identify_stack(OTHER, "z"), OTHER)


def test_other_tenants_see_nothing(service: Orchestrator) -> None:
    stack = create(service)
    with pytest.raises(StackNotFound):
        service.identify_stack(OTHER, "s1")
    with pytest.raises(StackNotFound):
        service.identify_stack(OTHER, stack.id)
    with pytest.raises(StackNotFound):
        service.show_stack(OTHER, stack)
    with pytest.raises(StackNotFound):
        service.delete_stack(OTHER, stack)
    with pytest.raises(StackNotFound):
        service.list_resources(OTHER, stack, ResourceQuery())
    assert service.list_stacks(OTHER, ListQuery()).items == ()
    assert service.show_stack(CTX, stack).status == "COMPLETE"
