"""What engines tell each other in service mode: a child stack's end, to the engine driving
its parent (the parent reacts to this message; its poll is only the fallback after a lost
message or a takeover).

Nested stacks are started on any engine (through :class:`~thermik.rpc.client.RoutedRuntime`,
like a stack created through the API), so a parent and its child may run on different
engines. When the child's traversal ends, its engine wakes the parent resource locally
(nothing happens when the parent runs elsewhere) and, through :class:`ParentWaker`, casts
``wake`` to the engine whose live lease drives the parent stack.
"""

from __future__ import annotations

import datetime
import logging

from thermik.errors import ThermikError
from thermik.persistence.store import Store
from thermik.rpc import api
from thermik.rpc.client import EngineClient, live_holder

LOG = logging.getLogger(__name__)


class ParentWaker:
    """Casts ``wake`` to the engine driving a parent stack, when that is not this one."""

    def __init__(self, engines: EngineClient, store: Store, engine_id: str) -> None:
        self.engines = engines
        self.store = store
        self.engine_id = engine_id

    def __call__(self, parent_id: str, resource_name: str, child_id: str) -> None:
        """Tell the parent's engine that ``child_id`` ended (runs on an executor thread)."""
        try:
            lease = self.store.get_lease(parent_id)
        except ThermikError as error:
            LOG.warning("parent %s of stack %s not woken: %s", parent_id, child_id, error)
            return
        holder = live_holder(lease, datetime.datetime.now(datetime.UTC))
        if holder is None or holder == self.engine_id:
            return
        LOG.info("Stack %s ended: telling engine %s, which drives its parent", child_id, holder)
        self.engines.cast(
            holder, api.WAKE, stack_id=parent_id, resource_name=resource_name, child=child_id
        )
