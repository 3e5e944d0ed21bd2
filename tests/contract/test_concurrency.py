"""Compare-and-swap under contention: several processes with several threads each race every
primitive, round after round. Exactly one participant wins each round, every loser gets the
typed conflict, and nothing else (no deadlock, no "database is locked") escapes."""

from __future__ import annotations

import collections
import datetime
import multiprocessing
import queue
from typing import Any

import pytest

from tests.contract import racers
from tests.contract.conftest import KEY
from tests.contract.test_store import make_stack
from thermik.persistence.crypto import SecretBox
from thermik.persistence.database import Database
from thermik.persistence.resource_values import NewResource
from thermik.persistence.sql.store import SqlStore

PROCESSES = 3
THREADS = 4
ROUNDS = 8
EXPECTED_CONFLICT = {
    "traversal": "TraversalConflict",
    "lock": "LockConflict",
    "generation": "GenerationConflict",
    "lease": "LeaseConflict",
    "takeover": "LeaseConflict",
    "name": "DuplicateName",
    "replace": "LockConflict",
}


def prepare(database: Database) -> tuple[SqlStore, racers.Plan]:
    """Fresh targets for every round; leases to take over expired an hour ago."""
    store = SqlStore(database, SecretBox(KEY))
    past = datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=1)
    old_clock = SqlStore(database, SecretBox(KEY), clock=lambda: past)
    plan: racers.Plan = {name: [] for name in EXPECTED_CONFLICT}
    for number in range(ROUNDS):
        stack = make_stack(store, name=f"race-{number}")
        plan["traversal"].append(stack.id)
        resource = store.create_resource(
            NewResource(stack.id, stack.id, "server", "T", stack.raw_template_id)
        )
        plan["lock"].append(resource.id)
        plan["generation"].append(f"server-{number}")
        plan["lease"].append(make_stack(store, name=f"lease-{number}").id)
        dead = make_stack(store, name=f"takeover-{number}")
        old_clock.acquire_lease(dead.id, "dead-engine", 60)
        plan["takeover"].append(dead.id)
        plan["name"].append(("t1", f"contested-{number}", stack.raw_template_id))
        other = store.create_resource(
            NewResource(stack.id, stack.id, "server", "T", stack.raw_template_id)
        )
        plan["replace"].append((stack.id, other.id, stack.raw_template_id))
    return store, plan


@pytest.fixture
def race(store: SqlStore, migrated_url: str) -> tuple[SqlStore, racers.Plan, list[Any]]:
    """Run the whole race once on this backend; the outcomes of every participant."""
    _, plan = prepare(store._db)
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(PROCESSES * THREADS, timeout=60)
    results = context.Queue()
    processes = [
        context.Process(
            target=racers.run_process, args=(migrated_url, KEY, plan, THREADS, barrier, results)
        )
        for _ in range(PROCESSES)
    ]
    for process in processes:
        process.start()
    outcomes: list[Any] = []
    try:
        for _ in processes:
            outcomes.extend(results.get(timeout=120))
    except queue.Empty:
        pytest.fail("a racing process hung or died")
    finally:
        for process in processes:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
    assert all(process.exitcode == 0 for process in processes)
    return store, plan, outcomes


def test_racing_compare_and_swap(race: tuple[SqlStore, racers.Plan, list[Any]]) -> None:
    store, plan, outcomes = race
    check_one_winner_per_round(outcomes)
    check_the_database_holds_the_winner(store, plan, outcomes)


def check_one_winner_per_round(outcomes: list[Any]) -> None:
    assert len(outcomes) == len(EXPECTED_CONFLICT) * ROUNDS * PROCESSES * THREADS
    errors = [outcome for outcome in outcomes if outcome[2] == "error"]
    assert errors == []
    by_round = collections.defaultdict(list)
    for primitive, number, result, detail in outcomes:
        by_round[primitive, number].append((result, detail))
    for (primitive, number), results in by_round.items():
        winners = [detail for result, detail in results if result == "won"]
        losers = {result for result, _ in results if result != "won"}
        assert len(winners) == 1, (primitive, number, results)
        assert losers == {EXPECTED_CONFLICT[primitive]}, (primitive, number, losers)


def check_the_database_holds_the_winner(
    store: SqlStore, plan: racers.Plan, outcomes: list[Any]
) -> None:
    won = {(p, n): detail for p, n, result, detail in outcomes if result == "won"}
    for number in range(ROUNDS):
        assert (
            store.get_stack(plan["traversal"][number]).current_traversal
            == won["traversal", number]
        )
        assert store.get_resource(plan["lock"][number]).engine_id == won["lock", number]
        assert store.get_metadata_generation(f"server-{number}") == 1
        lease = store.get_lease(plan["lease"][number])
        assert lease is not None
        assert lease.engine_id == won["lease", number]
        taken = store.get_lease(plan["takeover"][number])
        assert taken is not None
        assert (taken.engine_id, taken.epoch) == (won["takeover", number], 2)
        assert store.get_stack_by_name("t1", f"contested-{number}").id == won["name", number]
        stack_id, resource_id, _ = plan["replace"][number]
        replacements = [r for r in store.list_resources(stack_id) if r.replaces == resource_id]
        assert [str(r.id) for r in replacements] == [won["replace", number]]
