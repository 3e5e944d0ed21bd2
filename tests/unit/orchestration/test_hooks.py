"""Breakpoint hooks through the service, as heat-tempest-plugin's ``test_hooks`` drives Heat:
the environment's ``resources: {name: {hooks: ...}}`` stops a resource, a signal
``{"unset_hook": ...}`` (what ``openstack stack hook clear`` sends) lets it go on."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.unit.orchestration.conftest import CTX, WAIT, request, settle
from thermik.api.boundary import EventQuery, StackIdentity, StackRequest, StackUpdate
from thermik.errors import InvalidBreakPointHook, NotFound
from thermik.orchestration import Orchestrator

CHAIN: dict[str, Any] = {
    "heat_template_version": "2014-10-16",
    "resources": {
        "foo_step1": {"type": "OS::Heat::RandomString"},
        "foo_step2": {"type": "OS::Heat::RandomString", "depends_on": "foo_step1"},
        "foo_step3": {"type": "OS::Heat::RandomString", "depends_on": "foo_step2"},
    },
}


def hooks_on(name: str, hook: str) -> dict[str, Any]:
    return {"resource_registry": {"resources": {name: {"hooks": hook}}}}


def until(condition: Callable[[], Any]) -> Any:
    deadline = time.monotonic() + WAIT
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def state_of(service: Orchestrator, stack: StackIdentity, name: str) -> str:
    try:
        view = service.show_resource(CTX, stack, name)
    except NotFound:  # not there yet
        return ""
    return f"{view.action}_{view.status}"


def event_with(service: Orchestrator, stack: StackIdentity, name: str, reason: str) -> Any:
    def found() -> Any:
        events = service.list_events(CTX, stack, EventQuery(resource_name=name))
        return next((e for e in events if e.status_reason == reason), None)

    return until(found)


def test_pre_create_stops_until_the_hook_is_cleared(service: Orchestrator) -> None:
    stack = service.create_stack(
        CTX, request(template=CHAIN, environment=hooks_on("foo_step2", "pre-create"))
    )
    until(lambda: state_of(service, stack, "foo_step1") == "CREATE_COMPLETE")
    paused = event_with(
        service, stack, "foo_step2", "CREATE paused until Hook pre-create is cleared"
    )
    assert (paused.action, paused.status) == ("INIT", "COMPLETE")
    assert state_of(service, stack, "foo_step2") == "INIT_COMPLETE"
    assert state_of(service, stack, "foo_step3") == "INIT_COMPLETE"
    assert service.show_stack(CTX, stack).status == "IN_PROGRESS"
    with pytest.raises(InvalidBreakPointHook, match='The "pre-update" hook is not defined'):
        service.signal_resource(CTX, stack, "foo_step2", {"unset_hook": "pre-update"})
    with pytest.raises(InvalidBreakPointHook, match='Invalid hook type "pre-sleep"'):
        service.signal_resource(CTX, stack, "foo_step2", {"unset_hook": "pre-sleep"})
    service.signal_resource(CTX, stack, "foo_step2", {"unset_hook": "pre-create"})
    cleared = event_with(service, stack, "foo_step2", "Hook pre-create is cleared")
    assert (cleared.action, cleared.status) == ("INIT", "COMPLETE")
    view = settle(service, stack)
    assert (view.action, view.status) == ("CREATE", "COMPLETE"), view.status_reason
    with pytest.raises(InvalidBreakPointHook):
        service.signal_resource(CTX, stack, "foo_step2", {"unset_hook": "pre-create"})


def test_a_wildcard_stops_each_resource_it_matches(service: Orchestrator) -> None:
    stack = service.create_stack(
        CTX, request(template=CHAIN, environment=hooks_on("foo_*", "pre-create"))
    )
    for name in ("foo_step1", "foo_step2", "foo_step3"):
        event_with(service, stack, name, "CREATE paused until Hook pre-create is cleared")
        service.signal_resource(CTX, stack, name, {"unset_hook": "pre-create"})
    view = settle(service, stack)
    assert (view.action, view.status) == ("CREATE", "COMPLETE"), view.status_reason


@pytest.mark.parametrize("replace", [False, True], ids=["nochange", "replace"])
def test_pre_update_stops_an_update_and_keeps_the_state(
    service: Orchestrator, replace: bool
) -> None:
    environment = hooks_on("foo_step2", "pre-update")
    stack = service.create_stack(CTX, request(template=CHAIN, environment=environment))
    view = settle(service, stack)
    assert (view.action, view.status) == ("CREATE", "COMPLETE"), view.status_reason
    before = service.show_resource(CTX, stack, "foo_step2").physical_resource_id
    template = json.loads(json.dumps(CHAIN))
    if replace:
        template["resources"]["foo_step2"]["properties"] = {"length": 10}
    update = StackUpdate(StackRequest(template=template, environment=environment))
    service.update_stack(CTX, stack, update)
    paused = event_with(
        service, stack, "foo_step2", "UPDATE paused until Hook pre-update is cleared"
    )
    assert (paused.action, paused.status) == ("CREATE", "COMPLETE")
    assert service.show_stack(CTX, stack).action == "UPDATE"
    service.signal_resource(CTX, stack, "foo_step2", {"unset_hook": "pre-update"})
    cleared = event_with(service, stack, "foo_step2", "Hook pre-update is cleared")
    assert (cleared.action, cleared.status) == ("CREATE", "COMPLETE")
    view = settle(service, stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    after = service.show_resource(CTX, stack, "foo_step2").physical_resource_id
    assert (after != before) is replace


def test_a_hook_in_a_nested_stack_stops_the_nested_resource(service: Orchestrator) -> None:
    parent = {
        "heat_template_version": "2014-10-16",
        "resources": {"nested": {"type": "nested.yaml"}},
    }
    environment = {
        "resource_registry": {"resources": {"nested": {"foo_step2": {"hooks": "pre-create"}}}}
    }
    stack = service.create_stack(
        CTX,
        request(
            template=parent, environment=environment, files={"nested.yaml": json.dumps(CHAIN)}
        ),
    )
    child = until(lambda: service.show_resource(CTX, stack, "nested").nested_stack)
    event_with(service, child, "foo_step2", "CREATE paused until Hook pre-create is cleared")
    # What heat-tempest-plugin's assert_resource_is_a_stack checks while the hook waits: the
    # resource's physical id is the child's id, which finds the child, whose parent is the stack.
    assert service.show_resource(CTX, stack, "nested").physical_resource_id == child.id
    assert service.identify_stack(CTX, child.id) == child
    assert service.show_stack(CTX, child).parent == stack.id
    assert state_of(service, child, "foo_step2") == "INIT_COMPLETE"
    assert state_of(service, stack, "nested") == "CREATE_IN_PROGRESS"
    service.signal_resource(CTX, child, "foo_step2", {"unset_hook": "pre-create"})
    view = settle(service, stack)
    assert (view.action, view.status) == ("CREATE", "COMPLETE"), view.status_reason


def test_post_update_stops_only_an_update_that_changes_the_resource(
    service: Orchestrator,
) -> None:
    def template(value: str) -> dict[str, Any]:
        resource = {"type": "OS::Heat::TestResource", "properties": {"value": value}}
        return {"heat_template_version": "2014-10-16", "resources": {"r": resource}}

    environment = hooks_on("r", "post-update")
    stack = service.create_stack(CTX, request(template=template("a"), environment=environment))
    settle(service, stack)
    # Nothing changes: as in Heat, the update returns before its post-update hook.
    same = StackUpdate(StackRequest(template=template("a"), environment=environment))
    service.update_stack(CTX, stack, same)
    view = settle(service, stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    changed = StackUpdate(StackRequest(template=template("b"), environment=environment))
    service.update_stack(CTX, stack, changed)
    paused = event_with(service, stack, "r", "UPDATE paused until Hook post-update is cleared")
    assert (paused.action, paused.status) == ("UPDATE", "COMPLETE")
    service.signal_resource(CTX, stack, "r", {"unset_hook": "post-update"})
    view = settle(service, stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
