"""ResourceGroup and ResourceChain end to end: the real service, runtime and SQLite store."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.orchestration.conftest import CTX, request, settle
from thermik.api.boundary import (
    EventQuery,
    ResourceQuery,
    StackAction,
    StackIdentity,
    StackRequest,
    StackUpdate,
)
from thermik.errors import InvalidInput
from thermik.orchestration import Orchestrator


def group_template(count: int, removal: list[Any] | None = None) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "count": count,
        "resource_def": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": "node-%index%"},
        },
    }
    if removal is not None:
        properties["removal_policies"] = [{"resource_list": removal}]
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "group": {"type": "OS::Heat::ResourceGroup", "properties": properties},
            "salts": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {
                    "count": 2,
                    "index_var": "@@@",
                    "resource_def": {
                        "type": "OS::Heat::RandomString",
                        "properties": {"length": 6, "salt": "s@@@"},
                    },
                },
            },
            "reader": {
                "type": "OS::Heat::TestResource",
                "properties": {"value": {"get_attr": ["group", "resource.0.output"]}},
            },
            "collected": {
                "type": "OS::Heat::Value",
                "properties": {"value": {"get_attr": ["group", "attributes", "output"]}},
            },
        },
        "outputs": {
            "refs": {"value": {"get_attr": ["group", "refs"]}},
            "refs_map": {"value": {"get_attr": ["group", "refs_map"]}},
            "outputs": {"value": {"get_attr": ["group", "output"]}},
            "by_name": {"value": {"get_attr": ["group", "attributes", "output"]}},
            "first": {"value": {"get_attr": ["group", "resource.0"]}},
            "second": {"value": {"get_attr": ["group", "resource.1", "output"]}},
            "removed": {"value": {"get_attr": ["group", "removed_rsrc_list"]}},
            "reader": {"value": {"get_attr": ["reader", "output"]}},
            "collected": {"value": {"get_attr": ["collected", "value"]}},
            "salts": {"value": {"get_attr": ["salts", "value"]}},
        },
    }


def outputs(service: Orchestrator, stack: StackIdentity) -> dict[str, Any]:
    view = settle(service, stack)
    assert (view.status, view.status_reason) == ("COMPLETE", view.status_reason)
    return {o.key: o.value for o in view.outputs or ()}


def child_of(service: Orchestrator, stack: StackIdentity, name: str) -> StackIdentity:
    view = service.show_resource(CTX, stack, name)
    assert view.physical_resource_id is not None
    return service.identify_stack(CTX, view.physical_resource_id)


def members(service: Orchestrator, child: StackIdentity) -> dict[str, str | None]:
    views = service.list_resources(CTX, child, ResourceQuery())
    return {v.name: v.physical_resource_id for v in views}


def update(service: Orchestrator, stack: StackIdentity, template: dict[str, Any]) -> None:
    service.update_stack(CTX, stack, StackUpdate(StackRequest(name="s1", template=template)))
    view = settle(service, stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason


def test_a_group_creates_its_members_and_exposes_their_attributes(
    service: Orchestrator,
) -> None:
    stack = service.create_stack(CTX, request(template=group_template(3)))
    found = outputs(service, stack)
    child = child_of(service, stack, "group")
    refs = members(service, child)
    assert list(refs) == ["0", "1", "2"]
    assert found["refs"] == [refs["0"], refs["1"], refs["2"]]
    assert found["refs_map"] == refs
    assert found["outputs"] == ["node-0", "node-1", "node-2"]
    assert found["by_name"] == {"0": "node-0", "1": "node-1", "2": "node-2"}
    assert (found["first"], found["second"]) == (refs["0"], "node-1")
    assert (found["removed"], found["reader"]) == ([], "node-0")
    assert found["collected"] == found["by_name"]
    salts = found["salts"]
    assert [len(salt) for salt in salts] == [6, 6]
    assert salts[0] != salts[1]


def test_scaling_keeps_members_and_removal_policies_pick_who_goes(
    service: Orchestrator,
) -> None:
    stack = service.create_stack(CTX, request(template=group_template(3)))
    outputs(service, stack)
    child = child_of(service, stack, "group")
    before = members(service, child)
    update(service, stack, group_template(5))
    five = members(service, child)
    assert list(five) == ["0", "1", "2", "3", "4"]
    assert {k: five[k] for k in before} == before
    update(service, stack, group_template(2, removal=["1", five["3"]]))
    assert members(service, child) == {"0": before["0"], "2": before["2"]}
    found = outputs(service, stack)
    assert found["removed"] == ["1", "3"]
    assert found["outputs"] == ["node-0", "node-2"]
    assert found["by_name"] == found["collected"] == {"0": "node-0", "2": "node-2"}
    update(service, stack, group_template(3))
    assert list(members(service, child)) == ["0", "2", "4"]


def chain_template(concurrent: bool) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "chain": {
                "type": "OS::Heat::ResourceChain",
                "properties": {
                    "resources": ["OS::Heat::TestResource"] * 3,
                    "concurrent": concurrent,
                    "resource_properties": {"value": "c", "action_wait_secs": {"create": 0.2}},
                },
            }
        },
        "outputs": {
            "refs": {"value": {"get_attr": ["chain", "refs"]}},
            "by_name": {"value": {"get_attr": ["chain", "attributes", "output"]}},
            "last": {"value": {"get_attr": ["chain", "resource.2.output"]}},
        },
    }


def test_a_sequential_chain_creates_each_member_after_the_previous(
    service: Orchestrator,
) -> None:
    stack = service.create_stack(CTX, request(template=chain_template(False)))
    found = outputs(service, stack)
    child = child_of(service, stack, "chain")
    refs = members(service, child)
    assert found["refs"] == [refs["0"], refs["1"], refs["2"]]
    assert found["by_name"] == {"0": "c", "1": "c", "2": "c"}
    assert found["last"] == "c"
    events = service.list_events(CTX, child, EventQuery())
    order = [(e.resource_name, e.status) for e in events if e.resource_name in refs]
    assert order == [
        ("0", "IN_PROGRESS"),
        ("0", "COMPLETE"),
        ("1", "IN_PROGRESS"),
        ("1", "COMPLETE"),
        ("2", "IN_PROGRESS"),
        ("2", "COMPLETE"),
    ]


def test_deleting_the_stack_deletes_the_child(service: Orchestrator) -> None:
    stack = service.create_stack(CTX, request(template=group_template(2)))
    outputs(service, stack)
    child = child_of(service, stack, "group")
    service.delete_stack(CTX, stack)
    view = settle(service, stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE")
    gone = service.show_stack(CTX, child)
    assert (gone.action, gone.status) == ("DELETE", "COMPLETE")
    assert members(service, child) == {}


def test_a_failing_member_fails_the_group_with_its_reason(service: Orchestrator) -> None:
    template = group_template(2)
    template["resources"]["group"]["properties"]["resource_def"]["properties"]["fail"] = True
    stack = service.create_stack(CTX, request(template=template))
    view = settle(service, stack)
    assert (view.action, view.status) == ("CREATE", "FAILED")
    group = service.show_resource(CTX, stack, "group")
    assert group.status == "FAILED"
    assert "Test Resource failed" in group.status_reason


def test_an_unknown_member_type_is_refused_before_anything_is_stored(
    service: Orchestrator,
) -> None:
    template = group_template(2)
    template["resources"]["group"]["properties"]["resource_def"]["type"] = "OS::Nope"
    with pytest.raises(InvalidInput, match=r"resources\.group\.properties\.resource_def\.type"):
        service.create_stack(CTX, request(template=template))


def test_a_bad_update_policy_is_refused_before_anything_is_stored(
    service: Orchestrator,
) -> None:
    template = group_template(2)
    template["resources"]["group"]["update_policy"] = {"rolling_update": {"max_batch_size": 0}}
    stack = service.create_stack(CTX, request(template=group_template(2)))
    settle(service, stack)
    path = r"^resources\.group\.update_policy\.rolling_update\.max_batch_size: 0 is out of"
    with pytest.raises(InvalidInput, match=path):
        service.create_stack(CTX, request(name="s2", template=template))
    with pytest.raises(InvalidInput, match=path):
        service.update_stack(CTX, stack, StackUpdate(StackRequest(name="s1", template=template)))
    view = settle(service, stack)
    assert (view.action, view.status) == ("CREATE", "COMPLETE")


MEMBER = """\
heat_template_version: 2018-08-31
parameters:
  name: {type: string}
resources:
  inner: {type: OS::Heat::TestResource, properties: {value: {get_param: name}}}
outputs:
  greeting: {value: {list_join: [" ", [hello, {get_attr: [inner, output]}]]}}
"""


def test_members_may_be_template_resources_reading_the_parents_files(
    service: Orchestrator,
) -> None:
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "group": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {
                    "count": 2,
                    "resource_def": {"type": "member.yaml", "properties": {"name": "m%index%"}},
                },
            }
        },
        "outputs": {"greetings": {"value": {"get_attr": ["group", "greeting"]}}},
    }
    stack = service.create_stack(CTX, request(template=template, files={"member.yaml": MEMBER}))
    assert outputs(service, stack)["greetings"] == ["hello m0", "hello m1"]


def test_suspend_and_resume_reach_the_members(service: Orchestrator) -> None:
    stack = service.create_stack(CTX, request(template=group_template(2)))
    outputs(service, stack)
    child = child_of(service, stack, "group")
    for action in (StackAction.SUSPEND, StackAction.RESUME):
        service.stack_action(CTX, stack, action)
        view = settle(service, stack)
        assert (view.action, view.status) == (action.value.upper(), "COMPLETE")
        views = service.list_resources(CTX, child, ResourceQuery())
        assert {(v.action, v.status) for v in views} == {(action.value.upper(), "COMPLETE")}


def test_an_empty_group_has_an_empty_child_and_can_grow(service: Orchestrator) -> None:
    template = group_template(0)
    # Accepted but not honoured: every member is created or updated at once.
    template["resources"]["group"]["update_policy"] = {
        "batch_create": {"max_batch_size": 1},
        "rolling_update": {"max_batch_size": 1, "min_in_service": 1, "pause_time": 1},
    }
    stack = service.create_stack(CTX, request(template=template))
    found = outputs(service, stack)
    assert (found["refs"], found["outputs"], found["by_name"]) == ([], [], {})
    child = child_of(service, stack, "group")
    assert members(service, child) == {}
    update(service, stack, group_template(2))
    assert list(members(service, child)) == ["0", "1"]
