"""An engine killed at any moment leaves no stack of a nested tree stuck.

As :mod:`tests.scenarios.test_crash_recovery`, with a stack whose template resources are child
stacks (two levels): a real engine process creates, updates and deletes it and is killed with
SIGKILL after a random delay; a fresh engine must bring every stack of the tree (parent,
children, grandchildren, deleted ones included) to a settled state, none left INIT_COMPLETE,
with no row left locked.
"""

from __future__ import annotations

import concurrent.futures
import json
import random
import time
from pathlib import Path
from typing import Any

from tests.scenarios.crash_engine import CRASH_SETTINGS, created_stack, run_and_kill
from tests.scenarios.runtime_harness import HOT, KEY, migrated_sqlite, start_runtime
from tests.scenarios.test_crash_recovery import locked_rows
from thermik.actors.runtime import EngineRuntime
from thermik.conf.settings import DatabaseSettings
from thermik.persistence.factory import open_store
from thermik.persistence.store import Store
from thermik.persistence.values import Stack, StackQuery

RUNS = 8
PARALLEL = 4


def slow(value: Any, seconds: float) -> dict[str, Any]:
    """A test resource whose actions take ``seconds``."""
    return {"type": "OS::Heat::TestResource", "properties": {"value": value, "wait_secs": seconds}}


GRANDCHILD = {
    "heat_template_version": HOT,
    "parameters": {"word": {"type": "string"}},
    "resources": {
        "leaf": slow({"get_param": "word"}, 0.1),
        "twig": slow("twig", 0.05),
    },
    "outputs": {"said": {"value": {"get_attr": ["leaf", "output"]}}},
}
CHILD = {
    "heat_template_version": HOT,
    "parameters": {"word": {"type": "string"}},
    "resources": {
        "inner": {"type": "grandchild.yaml", "properties": {"word": {"get_param": "word"}}},
        "echo": slow({"get_attr": ["inner", "said"]}, 0.05),
    },
    "outputs": {"said": {"value": {"get_attr": ["echo", "output"]}}},
}
FILES = {"child.yaml": json.dumps(CHILD), "grandchild.yaml": json.dumps(GRANDCHILD)}


def template(word: str) -> dict[str, Any]:
    """Two template resources and a user of one's output."""
    return {
        "heat_template_version": HOT,
        "resources": {
            "a": {"type": "child.yaml", "properties": {"word": word}},
            "b": {"type": "child.yaml", "properties": {"word": f"{word}-b"}},
            "user": slow({"get_attr": ["a", "said"]}, 0.05),
        },
    }


def prepare(store: Store) -> tuple[dict[str, Any], int]:
    """The stack to create and the stored template to update it to."""
    second = store.store_raw_template(template("two"), {}, FILES)
    return {"template": template("one"), "files": FILES}, second


def tree_ids(store: Store, root_id: str) -> list[str]:
    """Every stack of the tree, deleted ones included, shallowest first."""
    query = StackQuery(tenant=None, show_deleted=True, show_nested=True, limit=None)
    found = [s for s in store.list_stacks(query) if s.root_id == root_id]
    return [s.id for s in sorted(found, key=lambda s: s.nested_depth)]


def kill_and_recover(directory: Path, migrated: Path, seed: int) -> dict[str, str]:
    """One run; the final state of every stack of the tree (raises if one is stuck)."""
    rng = random.Random(seed)
    directory.mkdir()
    url = migrated_sqlite(directory, migrated)
    store = open_store(DatabaseSettings(url, busy_timeout=10), KEY)
    create, update = prepare(store)
    progress = run_and_kill(url, create, update, rng.uniform(0.0, 1.6), "nested")
    where = f"seed {seed}, killed after [{progress}]"
    stack_id = created_stack(store, progress)
    if stack_id is None:
        store.close()
        return {}
    runtime = start_runtime(
        store, seed=None, nested=True, fallback_poll=2.0, settings=CRASH_SETTINGS
    )
    try:
        settled = settle(runtime, store, stack_id, time.monotonic() + 90)
        for stack in settled:
            state = f"{stack.action}_{stack.status}"
            assert stack.status != "IN_PROGRESS", f"{where}: {stack.name} left {state}"
            assert stack.action != "INIT", f"{where}: {stack.name} never started"
            locked = locked_rows(store, stack.id)
            assert not locked, f"{where}: {stack.name}: rows still locked: {locked}"
            owner = store.get_stack(stack.owner_id, show_deleted=True) if stack.owner_id else None
            if owner is not None and owner.deleted_at is not None:
                assert stack.deleted_at is not None, f"{where}: {stack.name} outlived its parent"
    finally:
        runtime.stop()
        store.close()
    return {stack.name: f"{stack.action}_{stack.status}" for stack in settled}


def settle(runtime: EngineRuntime, store: Store, root_id: str, deadline: float) -> list[Stack]:
    """Every stack of the tree once it is settled and stays so.

    Settling a stack may start work on its children (a parent's delete deletes them): the
    tree is settled when a pass over it finds every stack settled and nothing changed since
    the previous pass.
    """
    before: list[Stack] = []
    while True:
        for stack_id in tree_ids(store, root_id):
            runtime.wait(stack_id, max(0.5, deadline - time.monotonic()))
        query = StackQuery(tenant=None, show_deleted=True, show_nested=True, limit=None)
        now = [s for s in store.list_stacks(query) if s.root_id == root_id]
        quiet = [(s.id, s.current_traversal, s.status) for s in now] == [
            (s.id, s.current_traversal, s.status) for s in before
        ]
        if (quiet and all(s.status != "IN_PROGRESS" for s in now)) or time.monotonic() > deadline:
            return now
        before = now
        time.sleep(0.5)


def test_a_killed_engine_leaves_no_nested_stack_stuck(tmp_path: Path, migrated_file: Path) -> None:
    seeds = [random.randrange(1_000_000) for _ in range(RUNS)]
    with concurrent.futures.ThreadPoolExecutor(PARALLEL) as pool:
        futures = {
            seed: pool.submit(kill_and_recover, tmp_path / str(seed), migrated_file, seed)
            for seed in seeds
        }
        outcomes = {seed: future.result() for seed, future in futures.items()}
    finals = {state for found in outcomes.values() for state in found.values()}
    assert all(state.endswith(("_COMPLETE", "_FAILED")) for state in finals), outcomes
    assert "INIT_COMPLETE" not in finals, outcomes
