"""Breakpoint hooks through the runtime: the deadline and a cancel end a wait at a hook."""

from __future__ import annotations

import pytest

from tests.scenarios.runtime_harness import HOT, Harness, harness_on, res, wait_until
from thermik.engine.states import Action
from thermik.errors import InvalidBreakPointHook
from thermik.persistence.values import NewStack

WAITED = "CREATE paused until Hook pre-create is cleared"


def hooked_stack(harness: Harness) -> str:
    document = {
        "heat_template_version": HOT,
        "resources": {"first": res(), "second": {**res(), "depends_on": "first"}},
    }
    environment = {"resource_registry": {"resources": {"sec*": {"hooks": ["pre-create"]}}}}
    template_id = harness.store.store_raw_template(document, environment, {})
    return harness.store.create_stack(NewStack("s", "tenant", template_id)).id


def paused(harness: Harness, stack_id: str) -> bool:
    return ("second", "INIT", "COMPLETE", WAITED) in harness.events(stack_id)


def test_the_deadline_ends_a_wait_at_a_hook(harness: Harness) -> None:
    stack_id = hooked_stack(harness)
    harness.converge(stack_id, Action.CREATE, timeout_seconds=1.0)
    wait_until(lambda: paused(harness, stack_id))
    assert harness.wait(stack_id) == "CREATE_FAILED"
    assert harness.reason(stack_id) == "Timed out"
    assert ("second", "INIT", "COMPLETE", "Failure occurred while waiting.") in harness.events(
        stack_id
    )
    assert harness.states(stack_id) == {"first": "CREATE_COMPLETE", "second": "INIT_COMPLETE"}
    with pytest.raises(InvalidBreakPointHook):
        harness.runtime.signal(stack_id, "second", {"unset_hook": "pre-create"})


def test_a_cancel_ends_a_wait_at_a_hook(harness: Harness) -> None:
    stack_id = hooked_stack(harness)
    harness.converge(stack_id, Action.CREATE)
    wait_until(lambda: paused(harness, stack_id))
    harness.runtime.cancel(stack_id, rollback=False)
    assert harness.wait(stack_id) == "CREATE_FAILED"
    assert harness.reason(stack_id) == "Stack CREATE cancelled"
    assert harness.states(stack_id)["second"] == "INIT_COMPLETE"
    assert harness.locked(stack_id) == []


def test_clearing_the_hook_lets_the_create_finish(harness: Harness) -> None:
    stack_id = hooked_stack(harness)
    harness.converge(stack_id, Action.CREATE)
    wait_until(lambda: paused(harness, stack_id))
    harness.runtime.signal(stack_id, "second", {"unset_hook": "pre-create"})
    assert harness.wait(stack_id) == "CREATE_COMPLETE", harness.reason(stack_id)
    assert ("second", "INIT", "COMPLETE", "Hook pre-create is cleared") in harness.events(stack_id)


def count(harness: Harness, stack_id: str, reason: str) -> int:
    return sum(1 for event in harness.events(stack_id) if event[3] == reason)


def test_a_restarted_engine_waits_at_the_same_hook_without_a_second_event(
    sqlite_url: str,
) -> None:
    with harness_on(sqlite_url) as first:
        stack_id = hooked_stack(first)
        first.converge(stack_id, Action.CREATE)
        wait_until(lambda: paused(first, stack_id))
    with harness_on(sqlite_url) as again:
        assert count(again, stack_id, WAITED) == 1
        again.runtime.signal(stack_id, "second", {"unset_hook": "pre-create"})
        assert again.wait(stack_id) == "CREATE_COMPLETE", again.reason(stack_id)
        assert count(again, stack_id, "Hook pre-create is cleared") == 1
