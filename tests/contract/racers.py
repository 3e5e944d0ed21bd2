"""Race participants for test_concurrency.py; importable by spawned processes.

Each participant (a thread in some process) runs every round of every primitive: it waits at
a barrier shared by all participants, then tries the compare-and-swap once and records
"won" or the name of the conflict it got.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from typing import Any

from thermik.conf.settings import DatabaseSettings
from thermik.errors import Conflict
from thermik.persistence.factory import open_store
from thermik.persistence.resource_values import NewResource
from thermik.persistence.store import Store
from thermik.persistence.values import NewStack

#: A plan maps a primitive to its per-round targets (prepared by the test).
Plan = dict[str, list[Any]]
Outcome = tuple[str, int, str, str]  # (primitive, round, "won" | conflict class | "error", detail)


def attempt(store: Store, primitive: str, target: Any, me: str) -> str:
    """Try ``primitive`` on ``target`` once as participant ``me``; a detail on success."""
    if primitive == "traversal":
        return store.swap_traversal(target, "", me).current_traversal
    if primitive == "lock":
        store.lock_resource(target, me, 0)
        return me
    if primitive == "generation":
        return str(store.bump_metadata_generation(target, 0))
    if primitive == "lease":
        return store.acquire_lease(target, me, 60).engine_id
    if primitive == "takeover":
        return store.take_over_lease(target, me, 60).engine_id
    if primitive == "name":
        tenant, name, template_id = target
        return store.create_stack(NewStack(name, tenant, template_id)).id
    if primitive == "replace":
        stack_id, resource_id, template_id = target
        new = NewResource(stack_id, stack_id, "server", "OS::Nova::Server", template_id)
        return str(store.replace_resource(resource_id, 0, new).id)
    raise AssertionError(primitive)


def participate(store: Store, plan: Plan, wait: Callable[[], Any], out: list[Outcome]) -> None:
    """Run every round of ``plan`` as one participant."""
    me = str(uuid.uuid4())
    for primitive, targets in plan.items():
        for number, target in enumerate(targets):
            wait()
            try:
                out.append((primitive, number, "won", attempt(store, primitive, target, me)))
            except Conflict as error:
                out.append((primitive, number, type(error).__name__, str(error)))
            except Exception as error:  # anything else is what the test looks for
                out.append((primitive, number, "error", repr(error)))


def run_process(url: str, key: str, plan: Plan, threads: int, barrier: Any, results: Any) -> None:
    """Entry point of one racing process: ``threads`` participants sharing one store."""
    store = open_store(DatabaseSettings(url, busy_timeout=30), key)
    outcomes: list[Outcome] = []
    workers = [
        threading.Thread(target=participate, args=(store, plan, barrier.wait, outcomes))
        for _ in range(threads)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    store.close()
    results.put(outcomes)
