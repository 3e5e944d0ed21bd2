"""A create killed right after its stack row is written is resumed, never left INIT_COMPLETE.

A real engine process (:mod:`tests.scenarios.crash_engine`) creates a stack through the
orchestration service and kills itself (SIGKILL) right after the store wrote a stack row: the
top-level stack's, or the child stack of its ``OS::Heat::ResourceGroup``. A fresh engine must
take the tree over by itself and finish the create: the stack ``CREATE_COMPLETE``, the group
with one settled child, no row left locked. On SQLite and on PostgreSQL (which fails rather
than skips when ``THERMIK_REQUIRE_SERVICES=1`` and the server is unreachable).
"""

from __future__ import annotations

import contextlib
import copy
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import dbservers
from tests.contract.conftest import require_backend
from tests.scenarios.crash_engine import (
    ACKNOWLEDGED,
    CRASH_SETTINGS,
    created_stack,
    run_to_crash,
)
from tests.scenarios.runtime_harness import HOT, KEY, migrated_sqlite, res, start_runtime
from tests.scenarios.test_crash_recovery import locked_rows
from tests.scenarios.test_nested_crash_recovery import settle
from thermik.conf.settings import DatabaseSettings
from thermik.persistence import migration
from thermik.persistence.database import Database
from thermik.persistence.factory import open_store
from thermik.persistence.values import Stack

PLAIN = {
    "heat_template_version": HOT,
    "resources": {
        "first": res("one", wait_secs=0.05),
        "second": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_attr": ["first", "output"]}},
        },
    },
}
GROUP = {
    "heat_template_version": HOT,
    "resources": {
        "group": {
            "type": "OS::Heat::ResourceGroup",
            "properties": {"count": 3, "resource_def": res("member", wait_secs=0.05)},
        },
        "after": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"list_join": [",", {"get_attr": ["group", "refs"]}]}},
        },
    },
}
#: Each case: the template created, where the engine dies (the store's N-th ``create_stack``:
#: 1 is the stack's own row, 2 the group's child), whether the service had acknowledged the
#: create by then, and how many stacks the tree has.
CASES: dict[str, tuple[dict[str, Any], str, bool, int]] = {
    "stack": (PLAIN, "create_stack:1", False, 1),
    "group child": (GROUP, "create_stack:2", True, 2),
}


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(
    request: pytest.FixtureRequest, tmp_path: Path, migrated_file: Path
) -> Iterator[str]:
    """A fresh migrated database on each backend."""
    backend: str = request.param
    if backend == "sqlite":
        yield migrated_sqlite(tmp_path, migrated_file)
        return
    require_backend(backend)
    with dbservers.scratch_database(backend, tmp_path) as url:
        db = Database(DatabaseSettings(url))
        migration.upgrade(db)
        db.dispose()
        yield url


def crash_and_recover(
    url: str, template: dict[str, Any], crash_after: str, acknowledged: bool, child_lease: float
) -> list[Stack]:
    """Run the engine to its crash point, then a fresh engine until the tree settles; every
    stack of the tree (checked for locked rows). With ``child_lease``, the dead engine's
    lease of the child stack is first made to last that many seconds more than the others."""
    store = open_store(DatabaseSettings(url, busy_timeout=10), KEY)
    try:
        unused = store.store_raw_template(template, {}, {})  # the update is never reached
        progress = run_to_crash(url, {"template": template}, unused, crash_after, "nested")
        assert (ACKNOWLEDGED in progress) == acknowledged, progress
        stack_id = created_stack(store, progress)
        assert stack_id is not None, "the crash point is after the stack row was written"
        for child in store.list_stack_tree(stack_id)[1:] if child_lease else []:
            lease = store.get_lease(child.id)
            assert lease is not None, f"{child.name} was stored without its lease"
            store.renew_lease(child.id, lease.engine_id, child_lease)
        runtime = start_runtime(
            store, seed=None, nested=True, fallback_poll=2.0, settings=CRASH_SETTINGS
        )
        try:
            settled = settle(runtime, store, stack_id, time.monotonic() + 60)
            locked = {stack.name: locked_rows(store, stack.id) for stack in settled}
        finally:
            runtime.stop()
    finally:
        store.close()
    assert not any(locked.values()), locked
    return settled


def states_of(stacks: list[Stack]) -> dict[str, tuple[str, str]]:
    """Each stack's state and reason, by name."""
    return {s.name: (f"{s.action}_{s.status}", s.status_reason) for s in stacks}


@pytest.mark.parametrize("case", CASES)
def test_a_create_killed_right_after_its_stack_row_is_resumed(
    database_url: str, case: str
) -> None:
    template, crash_after, acknowledged, stacks = CASES[case]
    states = states_of(crash_and_recover(database_url, template, crash_after, acknowledged, 0))
    assert len(states) == stacks, states
    assert states["crashy"][0] == "CREATE_COMPLETE", states
    # The group's child may also have been updated once created (every update of a nested
    # stack resource updates its child).
    assert {state for state, _ in states.values()} <= {"CREATE_COMPLETE", "UPDATE_COMPLETE"}


def test_a_group_waits_for_its_child_still_held_by_the_dead_engine(database_url: str) -> None:
    """The parent is taken over first and its group resource resumed while the child's lease
    still runs: the group waits for the child's create (recovered once that lease expires)
    instead of updating a child it cannot drive."""
    states = states_of(crash_and_recover(database_url, GROUP, "create_stack:2", True, 4.0))
    assert len(states) == 2, states
    assert {state for state, _ in states.values()} == {"CREATE_COMPLETE"}, states


def test_a_batched_group_waits_for_its_first_batch_then_creates_the_others(
    sqlite_url: str,
) -> None:
    batched = copy.deepcopy(GROUP)
    batched["resources"]["group"]["update_policy"] = {"batch_create": {"max_batch_size": 1}}
    settled = crash_and_recover(sqlite_url, batched, "create_stack:2", True, 4.0)
    states = states_of(settled)
    assert states["crashy"][0] == "CREATE_COMPLETE", states
    child = next(stack for stack in settled if stack.owner_id is not None)
    with contextlib.closing(open_store(DatabaseSettings(sqlite_url), KEY)) as store:
        members = [row.name for row in store.list_resources(child.id)]
    assert sorted(members) == ["0", "1", "2"], states
