"""An engine killed at any moment leaves nothing stuck: a fresh engine finishes its work.

Each run starts a real engine process (:mod:`tests.scenarios.crash_engine`) that creates
(through the orchestration service, as the API does), updates and deletes a stack on a SQLite
file, kills it with SIGKILL after a random delay, then starts a fresh runtime, which must take
the stack over by itself (its lease expired) and bring it to COMPLETE or FAILED with no row
left locked. A failure names the run's seed and how far the killed engine had got. A kill
before the stack row is written leaves no stack, and is only allowed if the create was not
acknowledged; no stack is ever left INIT_COMPLETE.
"""

from __future__ import annotations

import concurrent.futures
import random
import time
from pathlib import Path
from typing import Any

from tests.scenarios.crash_engine import CRASH_SETTINGS, created_stack, run_and_kill
from tests.scenarios.runtime_harness import HOT, KEY, REGISTRY, migrated_sqlite, res
from thermik.actors.runtime import EngineRuntime
from thermik.conf.settings import DatabaseSettings
from thermik.persistence.factory import open_store
from thermik.persistence.store import Store

RUNS = 16
PARALLEL = 4


#: Seconds running actions of a settled stack get to unlock their rows.
LOCK_GRACE = 10.0


def resources(value: str) -> dict[str, object]:
    """A small stack with dependencies and actions that take a little while."""
    found: dict[str, object] = {}
    for i in range(6):
        wait = 0.05 * (i % 3)
        found[f"w{i}"] = res(value, wait_secs=wait, update_replace=i == 2)
    found["chain0"] = {
        "type": "OS::Heat::TestResource",
        "properties": {"value": {"get_attr": ["w0", "output"]}, "wait_secs": 0.1},
    }
    found["chain1"] = {
        "type": "OS::Heat::TestResource",
        "properties": {"value": {"get_resource": "chain0"}, "wait_secs": 0.1},
    }
    return found


def prepare(store: Store) -> tuple[dict[str, Any], int]:
    """The stack to create and the stored template to update it to."""
    second = store.store_raw_template(
        {"heat_template_version": HOT, "resources": resources("two")}, {}, {}
    )
    return {"template": {"heat_template_version": HOT, "resources": resources("one")}}, second


def locked_rows(store: Store, stack_id: str) -> list[str]:
    """Rows still locked once in-flight actions have had time to finish.

    A FAILED stack settles while nodes already running finish their actions (as in Heat), so
    their rows unlock a moment after the stack settles; a row a dead engine left locked never
    does.
    """
    deadline = time.monotonic() + LOCK_GRACE
    while True:
        locked = [row.name for row in store.list_resources(stack_id) if row.engine_id]
        if not locked or time.monotonic() > deadline:
            return locked
        time.sleep(0.1)


def kill_and_recover(directory: Path, migrated: Path, seed: int) -> str:
    """One run; the final state (raises if something is left stuck)."""
    rng = random.Random(seed)
    directory.mkdir()
    url = migrated_sqlite(directory, migrated)
    store = open_store(DatabaseSettings(url, busy_timeout=10), KEY)
    create, update = prepare(store)
    progress = run_and_kill(url, create, update, rng.uniform(0.0, 2.0))
    stack_id = created_stack(store, progress)
    if stack_id is None:
        store.close()
        return "absent"
    runtime = EngineRuntime.start(store=store, registry=REGISTRY, settings=CRASH_SETTINGS)
    try:
        state = runtime.wait(stack_id, 60)
        locked = locked_rows(store, stack_id)
        stack = store.get_stack(stack_id, show_deleted=True)
    finally:
        runtime.stop()
        store.close()
    where = f"seed {seed}, killed after [{progress}]"
    assert state.settled, f"{where}: stack left {state}: {stack.status_reason}"
    assert not locked, f"{where}: rows still locked: {locked}"
    return str(state)


def test_a_killed_engine_leaves_nothing_stuck(tmp_path: Path, migrated_file: Path) -> None:
    seeds = [random.randrange(1_000_000) for _ in range(RUNS)]
    with concurrent.futures.ThreadPoolExecutor(PARALLEL) as pool:
        futures = {
            seed: pool.submit(kill_and_recover, tmp_path / str(seed), migrated_file, seed)
            for seed in seeds
        }
        outcomes = {seed: future.result() for seed, future in futures.items()}
    finals = set(outcomes.values())
    assert finals <= {
        "absent",
        "CREATE_COMPLETE",
        "CREATE_FAILED",
        "UPDATE_COMPLETE",
        "UPDATE_FAILED",
        "ROLLBACK_COMPLETE",
        "ROLLBACK_FAILED",
        "DELETE_COMPLETE",
        "DELETE_FAILED",
    }, outcomes
