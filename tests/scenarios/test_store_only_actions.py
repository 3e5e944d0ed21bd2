"""Actions of store-only plugins run before their row is locked and are recorded in one write.

A resource whose type only writes what the engine stores for it (``ResourcePlugin.store_only``:
``OS::Heat::TestResource``, ``None``, ``Value``, ``RandomString``) is converged with one guarded
write per action instead of a lock, a data write and an unlock; the events are the same. Every
guarded write moves the row's atomic key on by one, which is how these tests count them. What
does not complete at once (a wait, a failure) takes the lock then and goes on as before; a row
that moved on meanwhile, or a cancel, leaves nothing of the action stored.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from tests.scenarios.runtime_harness import Harness, harness_with_types, res
from thermik.engine.states import Action
from thermik.persistence.resource_values import ResourceChanges
from thermik.resources.context import ResourceContext
from thermik.resources.plugin import Progress, Props, ResourcePlugin


def _events_of(harness: Harness, stack_id: str, name: str) -> list[str]:
    return [f"{a}_{s}" for n, a, s, _ in harness.events(stack_id) if n == name]


def test_a_store_only_action_is_one_guarded_write_with_both_events(harness: Harness) -> None:
    stack_id = harness.create({"a": res("one")})
    row = harness.live(stack_id)["a"]
    assert row.atomic_key == 1
    assert harness.store.get_resource_data(row.id) == {"value": "one"}
    template_id = harness.template({"a": res("two")})
    assert harness.run(stack_id, Action.UPDATE, template_id) == "UPDATE_COMPLETE"
    row = harness.live(stack_id)["a"]
    assert row.atomic_key == 2
    assert harness.store.get_resource_data(row.id) == {"value": "two"}
    assert harness.run(stack_id, Action.DELETE) == "DELETE_COMPLETE"
    assert _events_of(harness, stack_id, "a") == [
        "CREATE_IN_PROGRESS",
        "CREATE_COMPLETE",
        "UPDATE_IN_PROGRESS",
        "UPDATE_COMPLETE",
        "DELETE_IN_PROGRESS",
        "DELETE_COMPLETE",
    ]


def test_an_action_that_waits_takes_the_lock_first(harness: Harness) -> None:
    stack_id = harness.create({"a": res("one", wait_secs=0.05)})
    row = harness.live(stack_id)["a"]
    # The lock, the physical id stored as soon as the action waits (as Heat stores it), the
    # unlock.
    assert row.atomic_key == 3
    assert harness.store.get_resource_data(row.id) == {"value": "one"}
    assert _events_of(harness, stack_id, "a") == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]


def test_an_unchanged_resource_records_no_action(harness: Harness) -> None:
    stack_id = harness.create({"a": res("one"), "b": res("b")})
    template_id = harness.template({"a": res("one"), "b": res("changed")})
    assert harness.run(stack_id, Action.UPDATE, template_id) == "UPDATE_COMPLETE"
    assert _events_of(harness, stack_id, "a") == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]
    assert _events_of(harness, stack_id, "b")[-2:] == ["UPDATE_IN_PROGRESS", "UPDATE_COMPLETE"]


def test_a_failing_action_is_recorded_as_failed_with_its_data(harness: Harness) -> None:
    stack_id = harness.create({"a": res("one")})
    template_id = harness.template({"a": res("two", fail=True)})
    assert harness.run(stack_id, Action.UPDATE, template_id) == "UPDATE_FAILED"
    row = harness.live(stack_id)["a"]
    assert (row.action, row.status) == ("UPDATE", "FAILED")
    assert row.engine_id is None
    assert "Test Resource failed a" in row.status_reason
    assert _events_of(harness, stack_id, "a")[-2:] == ["UPDATE_IN_PROGRESS", "UPDATE_FAILED"]


class Gated(ResourcePlugin):
    """A store-only type whose create blocks on a gate (so it runs on the executor, not
    inline), then stores its data."""

    store_only: ClassVar[bool] = True
    entered: ClassVar[threading.Event]
    gate: ClassVar[threading.Event]
    calls: ClassVar[list[str]]
    left: ClassVar[threading.Event]

    @classmethod
    def runs_inline(cls, props: Props) -> bool:
        return False

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        self.calls.append(ctx.resource_name)
        self.entered.set()
        assert self.gate.wait(30)
        ctx.data.set("made", str(len(self.calls)))
        ctx.set_physical_id(f"gated-{len(self.calls)}")
        self.left.set()
        return None


@pytest.fixture
def gated(tmp_path: Path) -> Iterator[Harness]:
    Gated.entered, Gated.gate, Gated.left = (threading.Event() for _ in range(3))
    Gated.calls = []
    with harness_with_types(tmp_path, {"Test::StoreOnlyGated": Gated}) as harness:
        try:
            yield harness
        finally:
            Gated.gate.set()


def test_a_row_that_moves_on_meanwhile_is_converged_again(gated: Harness) -> None:
    stack_id = gated.stack({"g": {"type": "Test::StoreOnlyGated"}})
    gated.converge(stack_id, Action.CREATE)
    assert Gated.entered.wait(20)
    row = gated.live(stack_id)["g"]
    # Nothing is stored while the action runs ahead of the lock.
    assert (row.action, row.atomic_key, row.engine_id) == ("INIT", 0, None)
    gated.store.update_resource(row.id, 0, ResourceChanges(status_reason="moved on"))
    Gated.gate.set()
    assert gated.wait(stack_id) == "CREATE_COMPLETE", gated.reason(stack_id)
    assert Gated.calls == ["g", "g"]
    row = gated.live(stack_id)["g"]
    assert (row.atomic_key, row.physical_resource_id) == (2, "gated-2")
    assert gated.store.get_resource_data(row.id) == {"made": "2"}
    assert _events_of(gated, stack_id, "g") == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]


def test_a_cancel_while_the_action_runs_ahead_stores_nothing_of_it(gated: Harness) -> None:
    stack_id = gated.stack({"g": {"type": "Test::StoreOnlyGated"}})
    gated.converge(stack_id, Action.CREATE)
    assert Gated.entered.wait(20)
    gated.runtime.cancel(stack_id, rollback=False)
    assert gated.wait(stack_id) == "CREATE_FAILED"
    Gated.gate.set()
    assert Gated.left.wait(20)
    # What would be stored, would be by now: the action's outcome is handled on its return.
    time.sleep(0.3)
    row = gated.live(stack_id)["g"]
    assert (row.action, row.engine_id, row.physical_resource_id) == ("INIT", None, None)
    assert gated.store.get_resource_data(row.id) == {}
    assert "CREATE_COMPLETE" not in _events_of(gated, stack_id, "g")
