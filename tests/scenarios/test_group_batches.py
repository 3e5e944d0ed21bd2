"""ResourceGroup ``batch_create`` and ``rolling_update`` on the real runtime: the child grows
and changes batch by batch, pauses are timers (a cancel ends one at once, a clean stop
resumes it), and the members' events say so."""

from __future__ import annotations

import datetime
import itertools
import signal
import time
from collections.abc import Iterator
from typing import Any

import pykka
import pytest

from tests.scenarios.crash_engine import CRASH_SETTINGS as CRASH
from tests.scenarios.crash_engine import created_stack, start_engine
from tests.scenarios.runtime_harness import (
    HOT,
    KEY,
    Harness,
    harness_on,
    start_runtime,
    wait_until,
)
from thermik.conf.settings import DatabaseSettings
from thermik.engine.states import Action
from thermik.persistence.factory import open_store
from thermik.persistence.resource_values import EventQuery
from thermik.persistence.store import Store
from thermik.persistence.values import NewStack, Stack


def group(count: int, value: str = "v", **policy: Any) -> dict[str, Any]:
    """A stack holding group ``g`` of ``count`` test resources valued ``<value><index>``."""
    resource: dict[str, Any] = {
        "type": "OS::Heat::ResourceGroup",
        "properties": {
            "count": count,
            "resource_def": {
                "type": "OS::Heat::TestResource",
                "properties": {"value": f"{value}%index%"},
            },
        },
    }
    if policy:
        resource["update_policy"] = policy
    return {
        "heat_template_version": HOT,
        "parameters": {"batch": {"type": "number", "default": 1}},
        "resources": {"g": resource},
    }


@pytest.fixture
def nested(sqlite_url: str) -> Iterator[Harness]:
    with harness_on(sqlite_url, nested=True) as started:
        yield started


def store_stack(harness: Harness, template: dict[str, Any]) -> str:
    template_id = harness.store.store_raw_template(template, {}, {})
    return harness.store.create_stack(NewStack("top", "tenant", template_id)).id


def child(harness: Harness, stack_id: str) -> Stack | None:
    stacks = harness.store.list_stack_tree(stack_id)
    return stacks[1] if len(stacks) > 1 else None


def member_events(harness: Harness, child_id: str) -> list[tuple[str, str, datetime.datetime]]:
    """(member, ``<action>_<status>``, time) of the child's events, oldest first."""
    return events_of(harness.store, child_id)


def events_of(store: Store, child_id: str) -> list[tuple[str, str, datetime.datetime]]:
    return [
        (e.resource_name, f"{e.resource_action}_{e.resource_status}", e.created_at)
        for e in store.list_events(EventQuery(child_id))
        if e.resource_name.isdigit()  # not the child stack's own events
    ]


def completed(harness: Harness, child_id: str, state: str) -> list[tuple[str, float]]:
    """(member, time) of the child's member events in ``state``, oldest first."""
    return completed_in(harness.store, child_id, state)


def completed_in(store: Store, child_id: str, state: str) -> list[tuple[str, float]]:
    return [
        (name, at.timestamp()) for name, what, at in events_of(store, child_id) if what == state
    ]


def test_batch_create_creates_members_one_batch_after_another(nested: Harness) -> None:
    template = group(3, batch_create={"max_batch_size": 1, "pause_time": 0.4})
    stack_id = store_stack(nested, template)
    assert nested.run(stack_id, Action.CREATE) == "CREATE_COMPLETE", nested.reason(stack_id)
    found = child(nested, stack_id)
    assert found is not None
    done = completed(nested, found.id, "CREATE_COMPLETE")
    assert [name for name, _ in done] == ["0", "1", "2"]
    # Each member starts after the previous one ended and the pause passed.
    started = dict(completed(nested, found.id, "CREATE_IN_PROGRESS"))
    for (_, ended), (later, _) in itertools.pairwise(done):
        assert started[later] - ended >= 0.4
    live = nested.live(found.id)
    assert sorted(live) == ["0", "1", "2"]
    assert [nested.value_of(found.id, name) for name in "012"] == ["v0", "v1", "v2"]


def test_rolling_update_updates_one_member_at_a_time_keeping_all_in_service(
    nested: Harness,
) -> None:
    batch = {"get_param": "batch"}  # resolved against the parent stack
    policy = {"rolling_update": {"max_batch_size": batch, "min_in_service": 3}}
    stack_id = store_stack(nested, group(3, **policy))
    assert nested.run(stack_id, Action.CREATE) == "CREATE_COMPLETE", nested.reason(stack_id)
    found = child(nested, stack_id)
    assert found is not None
    before = len(member_events(nested, found.id))
    template_id = nested.store.store_raw_template(group(3, "w", **policy), {}, {})
    state = nested.run(stack_id, Action.UPDATE, template_id)
    assert state == "UPDATE_COMPLETE", nested.reason(stack_id)
    events = [(name, what) for name, what, _ in member_events(nested, found.id)[before:]]
    # An extra member keeps three in service while the highest indices are updated first,
    # one batch after another; the last batch removes the extra member.
    assert events == [
        ("3", "CREATE_IN_PROGRESS"),
        ("3", "CREATE_COMPLETE"),
        ("2", "UPDATE_IN_PROGRESS"),
        ("2", "UPDATE_COMPLETE"),
        ("1", "UPDATE_IN_PROGRESS"),
        ("1", "UPDATE_COMPLETE"),
        ("0", "UPDATE_IN_PROGRESS"),
        ("0", "UPDATE_COMPLETE"),
        ("3", "DELETE_IN_PROGRESS"),
        ("3", "DELETE_COMPLETE"),
    ]
    assert sorted(nested.live(found.id)) == ["0", "1", "2"]
    assert [nested.value_of(found.id, name) for name in "012"] == ["w0", "w1", "w2"]
    assert child(nested, stack_id) == nested.store.get_stack(found.id)


def test_a_cancel_during_a_pause_ends_the_create_at_once(nested: Harness) -> None:
    template = group(2, batch_create={"max_batch_size": 1, "pause_time": 600})
    stack_id = store_stack(nested, template)
    nested.converge(stack_id, Action.CREATE)

    def first_batch_done() -> bool:
        found = child(nested, stack_id)
        return found is not None and (found.action, found.status) == ("CREATE", "COMPLETE")

    wait_until(first_batch_done)
    time.sleep(0.2)  # the group sees the batch end and starts its pause
    started = time.monotonic()
    nested.runtime.cancel(stack_id, rollback=False)
    assert nested.wait(stack_id) == "CREATE_FAILED"
    assert time.monotonic() - started < 10
    found = child(nested, stack_id)
    assert found is not None
    assert sorted(nested.live(found.id)) == ["0"]
    assert nested.locked(stack_id) == []


def test_a_clean_stop_during_a_pause_resumes_the_batches(sqlite_url: str) -> None:
    template = group(3, batch_create={"max_batch_size": 1, "pause_time": 1.0})
    with harness_on(sqlite_url, nested=True) as first:
        stack_id = store_stack(first, template)
        first.converge(stack_id, Action.CREATE)
        wait_until(lambda: len(first.store.list_stack_tree(stack_id)) == 2)
        child_id = first.store.list_stack_tree(stack_id)[1].id
        wait_until(lambda: completed(first, child_id, "CREATE_COMPLETE") != [])
    # Stopped during the first pause: the child holds the first batch only, the group's
    # create waits to be taken up.
    store = open_store(DatabaseSettings(sqlite_url), KEY)
    try:
        assert [r.name for r in store.list_resources(child_id)] == ["0"]
        (row,) = store.list_resources(stack_id)
        assert (row.action, row.status, row.engine_id) == ("CREATE", "IN_PROGRESS", None)
    finally:
        store.close()
    with harness_on(sqlite_url, nested=True, fallback_poll=0.5) as again:
        assert again.wait(stack_id) == "CREATE_COMPLETE", again.reason(stack_id)
        done = completed(again, child_id, "CREATE_COMPLETE")
        assert [name for name, _ in done] == ["0", "1", "2"]
        started = dict(completed(again, child_id, "CREATE_IN_PROGRESS"))
        assert started["1"] - done[0][1] >= 1.0
        assert [e for e in again.events(stack_id) if e[2] == "FAILED"] == []
        assert again.locked(stack_id) == []


def test_a_rolling_update_cut_by_a_dead_engine_carries_on_in_batches(sqlite_url: str) -> None:
    """The engine is killed (SIGKILL) in the pause after the first batch; a fresh engine
    recovers the stack and the update updates the other members one at a time, never the
    first one again (with Heat's rule, an update that changes no property would update them
    all at once)."""
    policy = {"rolling_update": {"max_batch_size": 1, "pause_time": 2.0}}
    store = open_store(DatabaseSettings(sqlite_url, busy_timeout=10), KEY)
    update_id = store.store_raw_template(group(3, "w", **policy), {}, {})
    engine = start_engine(sqlite_url, {"template": group(3, **policy)}, update_id, "nested")
    try:

        def first_batch_done() -> bool:
            stack_id = created_stack(store, "")
            if stack_id is None:
                return False
            stacks = store.list_stack_tree(stack_id)
            if len(stacks) < 2 or (stacks[1].action, stacks[1].status) != ("UPDATE", "COMPLETE"):
                return False
            return [n for n, _ in completed_in(store, stacks[1].id, "UPDATE_COMPLETE")] == ["2"]

        wait_until(first_batch_done)
    finally:
        engine.send_signal(signal.SIGKILL)
        engine.communicate()
    stack_id = created_stack(store, "")
    assert stack_id is not None
    child_id = store.list_stack_tree(stack_id)[1].id
    runtime = start_runtime(store, seed=None, nested=True, fallback_poll=0.5, settings=CRASH)
    try:
        harness = Harness(store, runtime)
        # Recovery fails the group's update and the resumed traversal updates it again, or
        # the stack update fails and is run again: either way the update goes on.
        state = harness.wait(stack_id, 60)
        if state != "UPDATE_COMPLETE":
            assert state == "UPDATE_FAILED", harness.reason(stack_id)
            state = harness.run(stack_id, Action.UPDATE, update_id)
        assert state == "UPDATE_COMPLETE", harness.reason(stack_id)
        done = completed_in(store, child_id, "UPDATE_COMPLETE")
        assert [name for name, _ in done] == ["2", "1", "0"]
        # Still one batch after another, the pause between them.
        started = dict(completed_in(store, child_id, "UPDATE_IN_PROGRESS"))
        assert started["0"] - dict(done)["1"] >= 2.0
        assert [harness.value_of(child_id, name) for name in "012"] == ["w0", "w1", "w2"]
    finally:
        runtime.stop()
        pykka.ActorRegistry.stop_all()
        store.close()
