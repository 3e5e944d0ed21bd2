"""Signals through the runtime: wait condition handles, and the refusals of bad signals."""

from __future__ import annotations

import json

import pytest

from tests.scenarios.runtime_harness import Harness, res, wait_until
from thermik.engine.states import Action
from thermik.errors import InvalidSignal, ResourceNotFound, StackNotFound

WAITING = {
    "handle": {"type": "OS::Heat::WaitConditionHandle"},
    "wait": {
        "type": "OS::Heat::WaitCondition",
        "properties": {"handle": {"get_resource": "handle"}, "count": 2, "timeout": 30},
    },
    "after": {
        "type": "OS::Heat::TestResource",
        "properties": {"value": {"get_attr": ["wait", "data"]}},
    },
}


def start_waiting(harness: Harness) -> str:
    stack_id = harness.stack(WAITING)
    harness.converge(stack_id, Action.CREATE)
    wait_until(lambda: harness.states(stack_id).get("wait") == "CREATE_IN_PROGRESS")
    return stack_id


def test_a_wait_condition_completes_once_its_handle_got_enough_signals(harness: Harness) -> None:
    stack_id = start_waiting(harness)
    harness.runtime.signal(stack_id, "handle", {"data": "first"})
    harness.runtime.signal(stack_id, "handle", {"id": "web", "data": {"ip": "10.0.0.5"}})
    assert harness.wait(stack_id) == "CREATE_COMPLETE", harness.reason(stack_id)
    data = json.loads(harness.value_of(stack_id, "after"))
    assert data == {"1": "first", "web": {"ip": "10.0.0.5"}}
    signals = [e for e in harness.events(stack_id) if e[1] == "SIGNAL"]
    assert [e[3] for e in signals] == [
        "status:SUCCESS reason:Signal 1 received",
        "status:SUCCESS reason:Signal 2 received",
    ]


def test_a_failure_signal_fails_the_wait(harness: Harness) -> None:
    stack_id = start_waiting(harness)
    harness.runtime.signal(stack_id, "handle", {"status": "FAILURE", "reason": "disk full"})
    assert harness.wait(stack_id) == "CREATE_FAILED"
    reason = "WaitConditionFailure: resources.wait: disk full"
    assert harness.live(stack_id)["wait"].status_reason == reason
    assert harness.reason(stack_id) == f"Resource CREATE failed: {reason}"


def test_a_malformed_signal_is_refused_and_changes_nothing(harness: Harness) -> None:
    stack_id = start_waiting(harness)
    handle = harness.live(stack_id)["handle"]
    before = harness.store.get_resource_data(handle.id)
    with pytest.raises(InvalidSignal, match="Metadata format invalid"):
        harness.runtime.signal(stack_id, "handle", {"status": "MAYBE"})
    assert harness.store.get_resource_data(handle.id) == before
    harness.runtime.cancel(stack_id, rollback=False)
    assert harness.wait(stack_id) == "CREATE_FAILED"


def test_signals_to_what_takes_none_or_does_not_exist_are_refused(harness: Harness) -> None:
    stack_id = harness.create({"plain": res()})
    with pytest.raises(InvalidSignal, match="does not take signals"):
        harness.runtime.signal(stack_id, "plain", {})
    with pytest.raises(ResourceNotFound, match="The Resource \\(nope\\) could not be found"):
        harness.runtime.signal(stack_id, "nope", {})
    with pytest.raises(StackNotFound):
        harness.runtime.signal("no-such-stack", "plain", {})
    assert harness.states(stack_id) == {"plain": "CREATE_COMPLETE"}
