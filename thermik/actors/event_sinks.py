"""Environment ``event_sinks``: every event of a stack posted to the Zaqar queues it names.

An environment's ``event_sinks: [{type: zaqar-queue, target: QUEUE, ttl: SECONDS}]`` makes
Heat post each event of the stack, as the stack's user, to queue ``QUEUE`` of the user's
project, as a message in Heat's shape (:func:`event_message`) living ``ttl`` seconds (Heat's
default: an hour). Thermik does the same through the stack's cloud access (its Keystone trust
in service mode, the ``clouds.yaml`` cloud in local mode).

:class:`EventSinks` watches every event the store appends. The watcher runs on the writer's
thread (an actor's), so it only queues the event; a job on the engine's executor posts it.
Each stack has at most one such job at a time, which posts its queued events in the order
they were appended, up to :data:`BATCH` a request. Which sinks a stack has is read once per
traversal (the stack's IN_PROGRESS event starts one, and may come with a new environment);
a stack without sinks costs a dictionary look-up per event from then on. A sink that fails is
logged and its events dropped, as Heat does: it never fails the stack.
"""

from __future__ import annotations

import collections
import dataclasses
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from thermik.actors.stack_changes import STACK_TYPE
from thermik.clients.calls import CloudClient
from thermik.clients.messaging import post_messages
from thermik.errors import NotFound, ThermikError
from thermik.persistence.resource_values import Event
from thermik.persistence.store import Store
from thermik.resources.cloud_access import CloudAccessProvider

LOG = logging.getLogger(__name__)

#: Heat's lifetime of a sink's messages when the sink names none (seconds).
DEFAULT_TTL = 3600
#: The most messages one request posts (Zaqar's default limit per request is 10).
BATCH = 10
#: How many stacks' sinks are remembered (the least recently used beyond are read again).
_KEPT = 4096

Submit = Callable[[Callable[[], object]], None]


@dataclasses.dataclass(frozen=True, slots=True)
class ZaqarSink:
    """One ``zaqar-queue`` sink: the queue and the lifetime of its messages."""

    target: str
    ttl: int = DEFAULT_TTL


@dataclasses.dataclass(frozen=True, slots=True)
class StackSinks:
    """A stack's sinks, and the stack tree and traversal whose credential posts to them."""

    root_id: str
    traversal_id: str
    sinks: tuple[ZaqarSink, ...]


NO_SINKS = StackSinks("", "", ())


def sinks_of(environment: Mapping[str, Any] | None) -> tuple[ZaqarSink, ...]:
    """The Zaqar sinks of a stored environment (others, and malformed ones, are skipped:
    the environment was checked when the stack was made)."""
    found: list[ZaqarSink] = []
    for sink in (environment or {}).get("event_sinks") or ():
        if not isinstance(sink, Mapping) or sink.get("type") != "zaqar-queue":
            continue
        target, ttl = sink.get("target"), sink.get("ttl")
        if not isinstance(target, str) or not target:
            continue
        lifetime = ttl if isinstance(ttl, int) and not isinstance(ttl, bool) else DEFAULT_TTL
        found.append(ZaqarSink(target, lifetime))
    return tuple(found)


def event_message(event: Event) -> dict[str, Any]:
    """The message body Heat posts for ``event`` (``Event.as_dict``: type ``os.heat.event``,
    the event's fields in ``payload``)."""
    return {
        "timestamp": event.created_at.isoformat(),
        "version": "0.1",
        "type": "os.heat.event",
        "id": event.id,
        "payload": {
            "resource_name": event.resource_name,
            "physical_resource_id": event.physical_resource_id,
            "stack_id": event.stack_id,
            "resource_action": event.resource_action,
            "resource_status": event.resource_status,
            "resource_status_reason": event.resource_status_reason,
            "resource_type": event.resource_type,
            "resource_properties": dict(event.resource_properties or {}),
            "version": "0.1",
        },
    }


def starts_traversal(event: Event) -> bool:
    """Whether ``event`` is a stack's own IN_PROGRESS event (a traversal starts)."""
    return event.resource_type == STACK_TYPE and event.resource_status == "IN_PROGRESS"


class EventSinks:
    """Posts the events the store appends to their stacks' sinks (see the module docstring).

    ``submit`` runs a job on the engine's executor; without ``cloud`` (an engine with no
    cloud configured) a stack's sinks are logged as unreachable.
    """

    def __init__(self, store: Store, cloud: CloudAccessProvider | None, submit: Submit) -> None:
        self._store = store
        self._cloud = cloud
        self._submit = submit
        self._lock = threading.Lock()
        self._known: collections.OrderedDict[str, StackSinks] = collections.OrderedDict()
        self._pending: dict[str, collections.deque[Event]] = {}

    def observe(self, event: Event) -> None:
        """Queue ``event`` for its stack's sinks (on the writer's thread: returns at once)."""
        stack_id = event.stack_id
        with self._lock:
            if starts_traversal(event):
                self._known.pop(stack_id, None)
            known = self._known.get(stack_id)
            if known is not None and not known.sinks:
                return
            queued = self._pending.get(stack_id)
            if queued is not None:  # its job is running, and takes this one too
                queued.append(event)
                return
            self._pending[stack_id] = collections.deque((event,))
        try:
            self._submit(lambda: self._drain(stack_id))
        except RuntimeError:  # the engine is stopping
            with self._lock:
                self._pending.pop(stack_id, None)

    def _drain(self, stack_id: str) -> None:
        """Post the stack's queued events, oldest first, until none is left."""
        while True:
            with self._lock:
                queued = self._pending[stack_id]
                batch = [queued.popleft() for _ in range(min(BATCH, len(queued)))]
                if not batch:
                    del self._pending[stack_id]
                    return
            try:
                self._post(self._sinks(stack_id), batch)
            except Exception:  # a sink never stops the job: later events still go out
                LOG.exception("stack %s: its events were not posted to its event sinks", stack_id)

    def _sinks(self, stack_id: str) -> StackSinks:
        with self._lock:
            known = self._known.get(stack_id)
            if known is not None:
                self._known.move_to_end(stack_id)
                return known
        try:
            stack = self._store.get_stack(stack_id)
            environment = self._store.get_raw_template(stack.raw_template_id).environment
        except NotFound:
            return NO_SINKS
        found = StackSinks(stack.root_id, stack.current_traversal, sinks_of(environment))
        with self._lock:
            self._known[stack_id] = found
            while len(self._known) > _KEPT:
                self._known.popitem(last=False)
        return found

    def _post(self, found: StackSinks, events: Sequence[Event]) -> None:
        if not found.sinks:
            return
        if self._cloud is None:
            LOG.warning(
                "stack %s: %d event(s) not posted to its event sinks: this engine has no cloud",
                events[0].stack_id,
                len(events),
            )
            return
        access = self._cloud.for_traversal(found.root_id, found.traversal_id)
        bodies = [event_message(event) for event in events]
        for sink in found.sinks:
            try:
                _post_to(access.client("zaqar"), sink, bodies)
            except ThermikError as error:
                LOG.warning(
                    "stack %s: %d event(s) not posted to event sink zaqar-queue %s: %s",
                    events[0].stack_id,
                    len(events),
                    sink.target,
                    error,
                )


def _post_to(client: CloudClient, sink: ZaqarSink, bodies: Sequence[Mapping[str, Any]]) -> None:
    """Post ``bodies`` to the sink's queue in one request (never repeated: a retry after a
    lost answer could post them twice)."""
    messages = [{"body": body, "ttl": sink.ttl} for body in bodies]
    client.call(lambda conn: post_messages(conn, sink.target, messages), idempotent=False)
