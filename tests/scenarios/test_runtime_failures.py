"""Failures, rollback, timeouts, cancel and superseding updates through the actor runtime."""

from __future__ import annotations

import pytest

from tests.scenarios.runtime_harness import Harness, res, wait_until
from thermik.engine.states import Action
from thermik.errors import InvalidTransition, TraversalConflict

SLOW = 30
#: Long enough to act while it runs, short enough for what must wait for it to end.
WHILE = 1.5
#: Heat's status reason of a failing OS::Heat::TestResource named ``bad``.
BAD = "ValueError: resources.bad: Test Resource failed bad"


def test_a_failed_create_rolls_back_to_nothing(harness: Harness) -> None:
    stack_id = harness.stack({"ok": res(), "bad": res(fail=True)}, disable_rollback=False)
    state = harness.run(stack_id, Action.CREATE)
    assert state == "ROLLBACK_COMPLETE", harness.reason(stack_id)
    assert harness.rows(stack_id) == []
    events = harness.events(stack_id)
    assert ("bad", "CREATE", "FAILED", BAD) in events
    failed = ("s", "CREATE", "FAILED", f"Resource CREATE failed: {BAD}")
    assert failed in events
    assert events.index(failed) < events.index(
        ("s", "ROLLBACK", "IN_PROGRESS", "Stack ROLLBACK started")
    )
    template = harness.store.get_raw_template(harness.store.get_stack(stack_id).raw_template_id)
    assert template.template == {"heat_template_version": "2021-04-16"}


def test_without_rollback_a_failure_leaves_the_stack_failed(harness: Harness) -> None:
    stack_id = harness.stack({"ok": res(), "bad": res(fail=True)})
    assert harness.run(stack_id, Action.CREATE) == "CREATE_FAILED"
    assert harness.reason(stack_id) == f"Resource CREATE failed: {BAD}"
    assert harness.states(stack_id)["bad"] == "CREATE_FAILED"
    assert harness.live(stack_id)["bad"].status_reason == BAD
    events = harness.events(stack_id)
    failed = ("s", "CREATE", "FAILED", f"Resource CREATE failed: {BAD}")
    assert events.index(("bad", "CREATE", "FAILED", BAD)) < events.index(failed)
    assert harness.locked(stack_id) == []
    assert harness.run(stack_id, Action.DELETE) == "DELETE_COMPLETE"


def test_a_failed_update_rolls_back_to_the_previous_template(harness: Harness) -> None:
    stack_id = harness.create({"a": res("one"), "b": res("one")}, disable_rollback=False)
    bad = harness.template({"a": res("two"), "b": res("two", fail=True)})
    state = harness.run(stack_id, Action.UPDATE, bad)
    assert state == "ROLLBACK_COMPLETE", harness.reason(stack_id)
    assert harness.value_of(stack_id, "a") == "one"
    assert harness.states(stack_id) == {"a": "UPDATE_COMPLETE", "b": "CREATE_COMPLETE"}
    assert harness.locked(stack_id) == []


def test_properties_that_do_not_validate_fail_the_resource(harness: Harness) -> None:
    stack_id = harness.stack(
        {"a": res(), "b": {"type": "OS::Heat::TestResource", "properties": {"wait_secs": "soon"}}}
    )
    assert harness.run(stack_id, Action.CREATE) == "CREATE_FAILED"
    reason = harness.live(stack_id)["b"].status_reason
    # Heat's shape, "<type>: <path>: <message>", with Thermik's own path and message.
    assert reason.startswith("StackValidationFailed: resources.b.properties.wait_secs:"), reason
    assert harness.reason(stack_id) == f"Resource CREATE failed: {reason}"


def test_the_deadline_fails_the_stack_and_cancels_what_runs(harness: Harness) -> None:
    stack_id = harness.stack({"quick": res(), "slow": res(wait_secs=SLOW)})
    harness.converge(stack_id, Action.CREATE, timeout_seconds=0.5)
    assert harness.wait(stack_id) == "CREATE_FAILED"
    assert harness.reason(stack_id) == "Timed out"
    assert harness.states(stack_id) == {"quick": "CREATE_COMPLETE", "slow": "CREATE_FAILED"}
    slow = harness.live(stack_id)["slow"]
    # As Heat words it: the physical id (set before the action waits) names the resource too.
    assert slow.status_reason == (
        f'CREATE aborted (Task create from TestResource "slow" [{slow.physical_resource_id}] '
        f'Stack "s" [{stack_id}] Timed out)'
    )
    assert slow.physical_resource_id
    assert harness.locked(stack_id) == []


def test_cancel_with_rollback_returns_to_the_previous_template(harness: Harness) -> None:
    stack_id = harness.create({"a": res("one")}, disable_rollback=False)
    slow = harness.template({"a": res("two", action_wait_secs={"update": SLOW})})
    harness.converge(stack_id, Action.UPDATE, slow)
    wait_until(lambda: harness.states(stack_id)["a"] == "UPDATE_IN_PROGRESS")
    harness.runtime.cancel(stack_id, rollback=True)
    assert harness.wait(stack_id) == "ROLLBACK_COMPLETE", harness.reason(stack_id)
    events = harness.events(stack_id)
    # As Heat's convergence engine: straight from UPDATE_IN_PROGRESS to the rollback.
    stack_events = [event for event in events if event[0] == "s"]
    assert stack_events[-3:] == [
        ("s", "UPDATE", "IN_PROGRESS", "Stack UPDATE started"),
        ("s", "ROLLBACK", "IN_PROGRESS", "Stack ROLLBACK started"),
        ("s", "ROLLBACK", "COMPLETE", "Stack ROLLBACK completed successfully"),
    ]
    assert ("a", "UPDATE", "FAILED", "UPDATE aborted (user triggered cancel)") in events
    assert harness.value_of(stack_id, "a") == "one"
    assert harness.locked(stack_id) == []


def test_cancel_without_rollback_leaves_the_stack_failed(harness: Harness) -> None:
    stack_id = harness.stack({"a": res(wait_secs=SLOW)})
    harness.converge(stack_id, Action.CREATE)
    wait_until(lambda: harness.states(stack_id).get("a") == "CREATE_IN_PROGRESS")
    harness.runtime.cancel(stack_id, rollback=False)
    assert harness.wait(stack_id) == "CREATE_FAILED"
    assert harness.reason(stack_id) == "Stack CREATE cancelled"
    assert harness.states(stack_id) == {"a": "CREATE_FAILED"}
    reason = "CREATE aborted (user triggered cancel)"
    assert harness.live(stack_id)["a"].status_reason == reason
    assert harness.events(stack_id)[-2:] == [
        ("s", "CREATE", "FAILED", "Stack CREATE cancelled"),
        ("a", "CREATE", "FAILED", reason),
    ]
    assert harness.locked(stack_id) == []


def test_there_is_nothing_to_cancel_on_a_settled_stack(harness: Harness) -> None:
    stack_id = harness.create({"a": res()})
    with pytest.raises(InvalidTransition, match="no operation in progress to cancel"):
        harness.runtime.cancel(stack_id, rollback=False)


def test_a_delete_cannot_be_cancelled(harness: Harness) -> None:
    stack_id = harness.create({"a": res(action_wait_secs={"delete": WHILE})})
    harness.converge(stack_id, Action.DELETE)
    wait_until(lambda: harness.states(stack_id).get("a") == "DELETE_IN_PROGRESS")
    with pytest.raises(InvalidTransition, match="a stack DELETE cannot be cancelled"):
        harness.runtime.cancel(stack_id, rollback=False)
    harness.converge(stack_id, Action.DELETE)  # a second delete supersedes the first
    assert harness.wait(stack_id) == "DELETE_COMPLETE"


def test_an_update_supersedes_the_one_running_and_the_loser_learns_it(harness: Harness) -> None:
    stack_id = harness.create({"a": res("one"), "b": res("one")})
    # The running action of a superseded update finishes; the newer update waits for it.
    slow = {"a": res("two", action_wait_secs={"update": WHILE}), "b": res("two")}
    first = harness.converge(stack_id, Action.UPDATE, harness.template(slow))
    wait_until(lambda: harness.states(stack_id)["a"] == "UPDATE_IN_PROGRESS")
    second = harness.converge(
        stack_id,
        Action.UPDATE,
        harness.template({"a": res("three"), "b": res("three")}),
        expected_traversal=first,
    )
    with pytest.raises(TraversalConflict, match=f"traversal {first} is not current"):
        harness.converge(
            stack_id, Action.UPDATE, harness.template({"a": res("four")}), expected_traversal=first
        )
    assert harness.wait(stack_id, 60) == "UPDATE_COMPLETE", harness.reason(stack_id)
    assert harness.store.get_stack(stack_id).current_traversal == second
    assert harness.value_of(stack_id, "a") == "three"
    assert harness.value_of(stack_id, "b") == "three"
    assert harness.locked(stack_id) == []


def test_a_delete_while_creating_stops_the_create(harness: Harness) -> None:
    stack_id = harness.stack({"a": res(action_wait_secs={"create": SLOW}), "b": res()})
    harness.converge(stack_id, Action.CREATE)
    wait_until(lambda: harness.states(stack_id).get("a") == "CREATE_IN_PROGRESS")
    harness.converge(stack_id, Action.DELETE)
    assert harness.wait(stack_id, 60) == "DELETE_COMPLETE", harness.reason(stack_id)
    assert harness.locked(stack_id) == []
