"""Taking over stacks whose engine died: no stack stays IN_PROGRESS, no row stays locked.

A stack is driven by the engine holding its lease, renewed with every heartbeat. When an engine
stops renewing (it crashed or was killed), its leases expire and any engine may take them over:
rows it had locked are released as ``<ACTION>_FAILED`` ("Worker went down during resource
CREATE"), and a traversal it left IN_PROGRESS is resumed from the rows and the join log. The
runtime runs this on start and on every heartbeat (the reaper Heat never had). A new stack
is stored with its create's traversal and lease (:mod:`thermik.actors.creation`), so one the
dead engine had only just stored is resumed like the others. An engine that stopped cleanly
locked nothing any more: it suspended its running actions (:mod:`thermik.actors.suspension`),
which the resumed traversal takes up without failing them.
"""

from __future__ import annotations

import dataclasses
import logging

from thermik.actors import node_rules
from thermik.actors.services import Services
from thermik.engine.messages import ResumeStack
from thermik.errors import Conflict, NotFound, ThermikError
from thermik.persistence.values import StackQuery

LOG = logging.getLogger(__name__)


def candidates(services: Services) -> list[str]:
    """Stacks that may need a new driver: IN_PROGRESS ones and those with an expired lease."""
    store = services.store
    query = StackQuery(tenant=None, filters={"status": ["IN_PROGRESS"]}, show_nested=True)
    found = [stack.id for stack in store.list_stacks(query)]
    found.extend(lease.stack_id for lease in store.list_expired_leases())
    return list(dict.fromkeys(found))


@dataclasses.dataclass(frozen=True, slots=True)
class Claim:
    """A stack lease we now hold, and the engine that held it before (``None``: nobody)."""

    stack_id: str
    previous: str | None


def claim(services: Services, stack_id: str) -> Claim | None:
    """Take the stack's lease if it is free, ours, or expired; ``None`` if another holds it."""
    store = services.store
    seconds = float(services.settings.lease_seconds)
    lease = store.get_lease(stack_id)
    try:
        if lease is None or lease.engine_id == services.engine_id:
            store.acquire_lease(stack_id, services.engine_id, seconds)
            return Claim(stack_id, None)
        store.take_over_lease(stack_id, services.engine_id, seconds)
    except (Conflict, NotFound):
        return None
    return Claim(stack_id, lease.engine_id)


def release_dead_locks(services: Services, claimed: Claim) -> int:
    """Release the rows of the claimed stack locked by engines that are gone; how many.

    The engine whose lease we took is gone as far as this stack is concerned: it stopped
    renewing the lease, so whatever it locked here it no longer works on.
    """
    released = 0
    for row in services.store.list_resources(claimed.stack_id):
        holder = row.engine_id
        if holder is None:
            continue
        if holder != claimed.previous and services.engine_alive(holder):
            continue
        try:
            node_rules.release_dead(services, None, row)
            released += 1
        except Conflict:
            continue
    return released


def take_over(services: Services, stack_id: str) -> str | None:
    """Recover one stack if no live engine drives it; its resumed traversal, if any."""
    if stack_id in services.stacks:
        return None
    claimed = claim(services, stack_id)
    if claimed is None:
        return None
    try:
        release_dead_locks(services, claimed)
        resumed: str | None = services.stacks.ask(stack_id, ResumeStack(stack_id)).get()
    except ThermikError as error:
        LOG.warning("stack %s: not resumed: %s", stack_id, error)
        services.store.release_lease(stack_id, services.engine_id)
        return None
    return resumed


def resume_incomplete(services: Services) -> list[str]:
    """Recover every stack whose engine is gone; the ids of the stacks resumed."""
    resumed = []
    for stack_id in candidates(services):
        if take_over(services, stack_id) is not None:
            resumed.append(stack_id)
    return resumed
