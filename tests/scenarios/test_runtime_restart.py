"""An engine stopped mid-traversal: the next one resumes the stack, deadline included."""

from __future__ import annotations

import signal
import time
from typing import Any

from tests.scenarios.crash_engine import CRASH_SETTINGS, created_stack, start_engine
from tests.scenarios.runtime_harness import HOT, KEY, REGISTRY, harness_on, res, wait_until
from thermik.actors.runtime import EngineRuntime
from thermik.conf.settings import DatabaseSettings
from thermik.engine.states import Action
from thermik.persistence.factory import open_store
from thermik.persistence.resource_values import EventQuery, Resource
from thermik.persistence.store import Store

WENT_DOWN = "Worker went down during resource CREATE"
CREATING = ("CREATE", "IN_PROGRESS")


def test_a_restarted_engine_finishes_what_the_stopped_one_started(sqlite_url: str) -> None:
    with harness_on(sqlite_url) as first:
        stack_id = first.stack({f"r{i}": res(wait_secs=0.6) for i in range(6)})
        first.converge(stack_id, Action.CREATE)
        wait_until(lambda: "CREATE_IN_PROGRESS" in first.states(stack_id).values())
    with harness_on(sqlite_url) as again:
        assert again.wait(stack_id) == "CREATE_COMPLETE", again.reason(stack_id)
        assert again.locked(stack_id) == []
        assert (
            again.store.list_traversal_arrivals(again.store.get_stack(stack_id).current_traversal)
            == []
        )
        # A clean stop fails nothing: the actions it interrupted resumed, no version replaced.
        assert [event for event in again.events(stack_id) if event[2] == "FAILED"] == []
        assert len(again.rows(stack_id)) == 6
        # A resumed action is the same action: it was recorded IN_PROGRESS once.
        starts = [event[0] for event in again.events(stack_id) if event[1:3] == CREATING]
        assert sorted(starts) == [*(f"r{i}" for i in range(6)), "s"]


def test_the_deadline_counts_from_the_first_engines_start(sqlite_url: str) -> None:
    with harness_on(sqlite_url) as first:
        stack_id = first.stack({"quick": res(), "slow": res(wait_secs=60)})
        started = time.monotonic()
        first.converge(stack_id, Action.CREATE, timeout_seconds=3)
        wait_until(lambda: first.states(stack_id).get("slow") == "CREATE_IN_PROGRESS")
    with harness_on(sqlite_url) as again:
        assert again.wait(stack_id) == "CREATE_FAILED"
        assert again.reason(stack_id) == "Timed out"
        assert time.monotonic() - started < 15
        assert again.locked(stack_id) == []
        assert again.states(stack_id)["quick"] == "CREATE_COMPLETE"


def test_a_delete_interrupted_by_a_clean_stop_resumes(sqlite_url: str) -> None:
    slow_delete = res(action_wait_secs={"delete": 1.0})
    with harness_on(sqlite_url) as first:
        stack_id = first.create({"a": slow_delete, "b": slow_delete})
        assert first.wait(stack_id) == "CREATE_COMPLETE"
        first.converge(stack_id, Action.DELETE)
        wait_until(lambda: "DELETE_IN_PROGRESS" in first.states(stack_id).values())
    with harness_on(sqlite_url) as again:
        assert again.wait(stack_id) == "DELETE_COMPLETE", again.reason(stack_id)
        reasons = [event[3] for event in again.events(stack_id) if event[2] == "FAILED"]
        assert reasons == []
        assert again.locked(stack_id) == []
        deleting = ("DELETE", "IN_PROGRESS")
        starts = [event[0] for event in again.events(stack_id) if event[1:3] == deleting]
        assert sorted(starts) == ["a", "b", "s"]


def test_an_update_interrupted_by_a_clean_stop_resumes(sqlite_url: str) -> None:
    def slow_update(value: str) -> dict[str, object]:
        return res(value, action_wait_secs={"update": 1.0})

    with harness_on(sqlite_url) as first:
        stack_id = first.create({"a": slow_update("one"), "b": slow_update("one")})
        second = first.template({"a": slow_update("two"), "b": slow_update("two")})
        first.converge(stack_id, Action.UPDATE, second)
        wait_until(lambda: "UPDATE_IN_PROGRESS" in first.states(stack_id).values())
    with harness_on(sqlite_url) as again:
        assert again.wait(stack_id) == "UPDATE_COMPLETE", again.reason(stack_id)
        assert [event for event in again.events(stack_id) if event[2] == "FAILED"] == []
        assert len(again.rows(stack_id)) == 2
        assert again.value_of(stack_id, "a") == again.value_of(stack_id, "b") == "two"


def rows_of(store: Store) -> list[Resource]:
    """The rows of the stack the engine process created (none before it stored it)."""
    stack_id = created_stack(store, "")
    return [] if stack_id is None else store.list_resources(stack_id)


def test_a_killed_engines_running_action_fails_as_engine_went_down(sqlite_url: str) -> None:
    store = open_store(DatabaseSettings(sqlite_url, busy_timeout=10), KEY)
    template = {"heat_template_version": HOT, "resources": {"slow": res(wait_secs=30)}}
    raw = store.store_raw_template(template, {}, {})
    engine = start_engine(sqlite_url, {"template": template}, raw)
    try:
        wait_until(lambda: any(r.engine_id for r in rows_of(store)))
        killed = next(r.engine_id for r in rows_of(store) if r.engine_id)
    finally:
        engine.send_signal(signal.SIGKILL)
        engine.communicate()
    stack_id = created_stack(store, "")
    assert stack_id is not None
    runtime = EngineRuntime.start(store=store, registry=REGISTRY, settings=CRASH_SETTINGS)
    try:
        # Once the killed engine's lease expired, its locked row is released as FAILED (the
        # resumed traversal then replaces that version, as after any failed create).
        def went_down() -> bool:
            events = store.list_events(EventQuery(stack_id))
            return any(e.resource_status_reason == WENT_DOWN for e in events)

        wait_until(went_down)
        assert all(row.engine_id != killed for row in store.list_resources(stack_id))
    finally:
        runtime.stop()
        store.close()


def test_an_update_killed_while_creating_a_replacement_finishes(sqlite_url: str) -> None:
    """The replacement a dead engine was creating is replaced again and cleaned up (Heat
    re-checks it), instead of failing the resumed update."""
    store = open_store(DatabaseSettings(sqlite_url, busy_timeout=10), KEY)

    def template(value: str) -> dict[str, Any]:
        resources = {
            "r": res(value, update_replace=True, action_wait_secs={"create": 1.5}),
            "after": {
                "type": "OS::Heat::TestResource",
                "properties": {"value": {"get_resource": "r"}},
            },
        }
        return {"heat_template_version": HOT, "resources": resources}

    second = store.store_raw_template(template("two"), {}, {})
    engine = start_engine(sqlite_url, {"template": template("one")}, second)

    def creating_replacement() -> bool:
        rows = rows_of(store)
        return any(row.replaces is not None and row.status == "IN_PROGRESS" for row in rows)

    try:
        wait_until(creating_replacement)
    finally:
        engine.send_signal(signal.SIGKILL)
        engine.communicate()
    stack_id = created_stack(store, "")
    assert stack_id is not None
    runtime = EngineRuntime.start(store=store, registry=REGISTRY, settings=CRASH_SETTINGS)
    try:
        state = str(runtime.wait(stack_id, 30))
        assert state == "UPDATE_COMPLETE", store.get_stack(stack_id).status_reason
        rows = store.list_resources(stack_id)
        events = store.list_events(EventQuery(stack_id))
        live = {row.name: store.get_resource_properties(row.id) or {} for row in rows}
    finally:
        runtime.stop()
        store.close()
    assert any(e.resource_status_reason == WENT_DOWN for e in events)
    assert sorted((row.name, row.action, row.status, row.engine_id) for row in rows) == [
        ("after", "UPDATE", "COMPLETE", None),
        ("r", "CREATE", "COMPLETE", None),
    ]
    assert live["r"]["value"] == "two"
