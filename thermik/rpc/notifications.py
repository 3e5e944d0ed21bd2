"""Heat's stack notifications, sent through oslo.messaging's Notifier.

Every change of a stack's state that Heat announces is announced the same way, so the tools
that consume Heat's notifications consume Thermik's: ``orchestration.stack.<action>.start``
when an action begins (IN_PROGRESS), ``.end`` when it completes, ``.error`` (at ERROR level)
when it fails, from publisher ``orchestration.<host>``, with Heat's payload.

The stack actor announces a change on its own thread, which must not wait on the message bus:
:class:`StackNotifier` queues each notification and one thread sends them, in order.
"""

from __future__ import annotations

import datetime
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

import oslo_messaging

from thermik.engine.states import State, Status
from thermik.persistence.values import Stack

LOG = logging.getLogger(__name__)

#: The suffix of the event type by status, and whether it is sent at ERROR level.
_SUFFIXES = {
    Status.IN_PROGRESS: ("start", False),
    Status.COMPLETE: ("end", False),
    Status.FAILED: ("error", True),
}


def event_type(state: State) -> tuple[str, bool] | None:
    """The notification's event type for a stack entering ``state``, and whether it is an
    error; None for a state Heat does not announce."""
    suffix = _SUFFIXES.get(state.status)
    if suffix is None:
        return None
    name, is_error = suffix
    return f"orchestration.stack.{state.action.value.lower()}.{name}", is_error


def _iso(moment: datetime.datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def payload(stack: Stack, state: State, reason: str) -> dict[str, Any]:
    """Heat's notification body for ``stack`` entering ``state``."""
    return {
        "tenant_id": stack.tenant,
        "user_id": stack.username,
        "user_identity": stack.username,
        "stack_identity": f"arn:openstack:heat::{stack.tenant}:stacks/{stack.name}/{stack.id}",
        "stack_name": stack.name,
        "state": f"{state.action.value}_{state.status.value}",
        "state_reason": reason,
        "create_at": _iso(stack.created_at),
        "updated_at": _iso(stack.updated_at),
        "tags": list(stack.tags),
    }


#: What the sending thread is told to end with.
_STOP = object()


class StackNotifier:
    """Sends a stack's state changes as Heat's notifications, from one thread of its own."""

    def __init__(
        self, notifier: oslo_messaging.Notifier, release: Callable[[], None] = lambda: None
    ) -> None:
        self._notifier = notifier
        self._release = release
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._send, name="thermik-notify", daemon=True)
        self._thread.start()

    def stack_changed(self, stack: Stack, state: State, reason: str) -> None:
        """Announce that ``stack`` entered ``state`` (returns at once)."""
        kind = event_type(state)
        if kind is not None:
            self._queue.put((kind, payload(stack, state, reason)))

    def _send(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            (name, is_error), body = item
            context = {"tenant": body["tenant_id"], "user": body["user_id"]}
            try:
                if is_error:
                    self._notifier.error(context, name, body)
                else:
                    self._notifier.info(context, name, body)
            except Exception:  # a lost notification must not stop the next ones
                LOG.exception("notification %s not sent", name)

    def close(self, timeout: float = 5.0) -> None:
        """Send what is queued (for up to ``timeout`` seconds), then stop."""
        self._queue.put(_STOP)
        self._thread.join(timeout)
        self._release()
