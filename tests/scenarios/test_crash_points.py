"""A create killed right after its stack row is written is resumed, never left INIT_COMPLETE.

A real engine process (:mod:`tests.scenarios.crash_engine`) creates a stack through the
orchestration service and kills itself (SIGKILL) right after the store wrote a stack row: the
top-level stack's, or the child stack of its ``OS::Heat::ResourceGroup``. A fresh engine must
take the tree over by itself and finish the create: the stack ``CREATE_COMPLETE``, the group
with one settled child, no row left locked. On SQLite and on PostgreSQL (which fails rather
than skips when ``THERMIK_REQUIRE_SERVICES=1`` and the server is unreachable).
"""

from __future__ import annotations

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
from tests.scenarios.runtime_harness import HOT, migrated_sqlite, res, start_runtime
from tests.scenarios.test_crash_recovery import locked_rows
from tests.scenarios.test_nested_crash_recovery import settle
from thermik.conf.settings import DatabaseSettings
from thermik.persistence import migration
from thermik.persistence.database import Database
from thermik.persistence.factory import open_store

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


@pytest.mark.parametrize("case", CASES)
def test_a_create_killed_right_after_its_stack_row_is_resumed(
    database_url: str, case: str
) -> None:
    template, crash_after, acknowledged, stacks = CASES[case]
    store = open_store(DatabaseSettings(database_url, busy_timeout=10), None)
    try:
        unused = store.store_raw_template(template, {}, {})  # the update is never reached
        progress = run_to_crash(
            database_url, {"template": template}, unused, crash_after, "nested"
        )
        assert (ACKNOWLEDGED in progress) == acknowledged, progress
        stack_id = created_stack(store, progress)
        assert stack_id is not None, "the crash point is after the stack row was written"
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
    states = {s.name: (f"{s.action}_{s.status}", s.status_reason) for s in settled}
    assert len(settled) == stacks, states
    assert states["crashy"][0] == "CREATE_COMPLETE", states
    # The group's child may also have been updated once created (every update of a nested
    # stack resource updates its child).
    assert {state for state, _ in states.values()} <= {"CREATE_COMPLETE", "UPDATE_COMPLETE"}
    assert not any(locked.values()), locked
