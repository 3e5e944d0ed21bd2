"""Nested stacks through the orchestration service: template resources end to end."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.unit.orchestration.conftest import CTX, create, settle
from thermik.api.boundary import ListQuery, ResourceQuery, StackIdentity, StackRequest
from thermik.errors import ThermikError
from thermik.orchestration import Orchestrator

SERVER = {
    "heat_template_version": "2018-08-31",
    "parameters": {"name": {"type": "string"}, "size": {"type": "number", "default": 1}},
    "resources": {
        "box": {"type": "OS::Heat::TestResource", "properties": {"value": {"get_param": "name"}}},
        "disk": {"type": "disk.yaml"},
    },
    "outputs": {"first_address": {"value": {"get_attr": ["box", "output"]}}},
}
DISK = {
    "heat_template_version": "2018-08-31",
    "resources": {"volume": {"type": "OS::Heat::TestResource"}},
}
FILES = {"server.yaml": json.dumps(SERVER), "disk.yaml": json.dumps(DISK)}
PARENT: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "resources": {"web": {"type": "My::Server", "properties": {"name": "web-1"}}},
    "outputs": {"address": {"value": {"get_attr": ["web", "first_address"]}}},
}
ENVIRONMENT = {"resource_registry": {"My::Server": "server.yaml"}}


def create_parent(service: Orchestrator) -> StackIdentity:
    return create(service, "top", template=PARENT, files=FILES, environment=ENVIRONMENT)


def test_a_registry_alias_to_a_template_runs_as_a_nested_stack(service: Orchestrator) -> None:
    stack = create_parent(service)
    view = settle(service, stack)
    assert {o.key: o.value for o in view.outputs or ()} == {"address": "web-1"}
    # Nested stacks are hidden from the stack list unless asked for.
    listed = service.list_stacks(CTX, ListQuery())
    assert [s.identity.name for s in listed.items] == ["top"]
    nested = service.list_stacks(CTX, ListQuery(show_nested=True)).items
    children = [s for s in nested if s.identity.name != "top"]
    assert len(children) == 2
    web = next(s for s in children if s.parent == stack.id)
    assert web.identity.name.startswith("top-web-")
    assert (web.action, web.status) == ("CREATE", "COMPLETE")
    # Resources of the whole tree, two levels down.
    names = {r.name for r in service.list_resources(CTX, stack, ResourceQuery(nested_depth=2))}
    assert names == {"web", "box", "disk", "volume"}
    top_level = service.list_resources(CTX, stack, ResourceQuery())
    assert [(r.name, r.nested_stack) for r in top_level] == [("web", web.identity)]

    service.delete_stack(CTX, stack)
    service.runtime.wait(stack.id, 30)
    gone = service.list_stacks(CTX, ListQuery(show_nested=True, show_deleted=True)).items
    assert {(s.action, s.status) for s in gone} == {("DELETE", "COMPLETE")}
    assert len(gone) == 3


def test_the_properties_of_a_template_resource_are_checked_before_anything_is_stored(
    service: Orchestrator,
) -> None:
    template = dict(PARENT, resources={"web": {"type": "My::Server", "properties": {"nmae": 1}}})
    request = StackRequest(name="bad", template=template, files=FILES, environment=ENVIRONMENT)
    with pytest.raises(ThermikError, match="nmae") as caught:
        service.create_stack(CTX, request)
    assert caught.value.path[:3] == ("resources", "web", "properties")
    assert service.list_stacks(CTX, ListQuery(show_nested=True)).items == ()


def test_a_remote_os_heat_stack_fails_without_a_cloud_to_reach_its_region(
    service: Orchestrator,
) -> None:
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "remote": {
                "type": "OS::Heat::Stack",
                "properties": {
                    "context": {"region_name": "RegionTwo"},
                    "template": json.dumps(DISK),
                },
            }
        },
    }
    view = settle(service, service.create_stack(CTX, StackRequest(name="far", template=template)))
    assert (view.action, view.status) == ("CREATE", "FAILED")
    assert "OS::Heat::Stack needs an OpenStack cloud" in (view.status_reason or "")


def test_a_local_os_heat_stack_runs_its_template(service: Orchestrator) -> None:
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "local": {
                "type": "OS::Heat::Stack",
                "properties": {
                    "template": json.dumps(SERVER),
                    "parameters": {"name": "inner"},
                },
            }
        },
        "outputs": {"inner": {"value": {"get_attr": ["local", "outputs", "first_address"]}}},
    }
    stack = create(service, "near", template=template, files=FILES)
    view = settle(service, stack)
    assert {o.key: o.value for o in view.outputs or ()} == {"inner": "inner"}


def test_abandon_leaves_the_children_and_adopt_takes_them_over(service: Orchestrator) -> None:
    stack = create_parent(service)
    children = service.list_stacks(CTX, ListQuery(show_nested=True)).items
    document = service.abandon_stack(CTX, stack)
    settle(service, stack)
    # The children (and what they made) stay: the document names them by id.
    live = service.list_stacks(CTX, ListQuery(show_nested=True)).items
    assert {s.identity for s in live} == {s.identity for s in children} - {stack}
    request = StackRequest(name="again", adopt_data=document, files=FILES, environment=ENVIRONMENT)
    adopted = service.adopt_stack(CTX, request)
    view = settle(service, adopted)
    assert (view.action, view.status) == ("ADOPT", "COMPLETE"), view.status_reason
    assert {o.key: o.value for o in view.outputs or ()} == {"address": "web-1"}
    service.delete_stack(CTX, adopted)
    service.runtime.wait(adopted.id, 30)
    assert service.list_stacks(CTX, ListQuery(show_nested=True)).items == ()


def test_a_failing_nested_output_is_the_parent_outputs_error(service: Orchestrator) -> None:
    child = {
        "heat_template_version": "2015-10-15",
        "resources": {"a": {"type": "OS::Heat::TestResource", "properties": {"value": "a"}}},
        "outputs": {
            "out_a": {"value": {"get_attr": ["a", "output"]}},
            "out_b": {"value": {"get_param": "foo"}},
        },
    }
    parent = {
        "heat_template_version": "2015-10-15",
        "resources": {"parent": {"type": "1.yaml"}},
        "outputs": {
            "a": {"value": {"get_attr": ["parent", "out_a"]}},
            "b": {"value": {"get_attr": ["parent", "out_b"]}},
        },
    }
    stack = create(service, "top", template=parent, files={"1.yaml": json.dumps(child)})
    view = settle(service, stack)
    assert (view.action, view.status) == ("CREATE", "COMPLETE")
    outputs = {o.key: (o.value, o.error) for o in view.outputs or ()}
    # As Heat says it: the template resource's output failed, and why.
    assert outputs == {
        "a": ("a", None),
        "b": (None, "Error in parent output out_b: The Parameter (foo) was not provided."),
    }
    assert service.show_output(CTX, stack, "b").error == outputs["b"][1]
