"""One shared timer thread for every actor: delayed messages instead of sleeping actors.

Actors never sleep. When one must act later (a traversal's deadline, a cancel grace period, the
next ``check_*_complete`` poll, a lock retry) it asks the :class:`TimerService` to tell it a
message after a delay, and keeps processing its inbox meanwhile. Firing runs a callback on the
timer thread, so callbacks must be quick: telling an actor, or handing work to an executor.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable, Set
from typing import Any

import pykka

from thermik.actors.affinity import pin_this_thread

LOG = logging.getLogger(__name__)


class TimerHandle:
    """A scheduled callback; :meth:`cancel` prevents it from running if it has not yet."""

    __slots__ = ("callback", "cancelled", "deadline")

    def __init__(self, deadline: float, callback: Callable[[], None]) -> None:
        self.deadline = deadline
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        """Drop the callback (a no-op once it ran)."""
        self.cancelled = True
        # A cancelled deadline may sit in the heap for an hour: let go of what it refers to.
        self.callback = _nothing


class TimerService:
    """A heap of deadlines served by one daemon thread (on ``cpus`` if given)."""

    def __init__(self, cpus: Set[int] | None = None) -> None:
        self._cpus = cpus
        self._heap: list[tuple[float, int, TimerHandle]] = []
        self._order = itertools.count()
        self._wake = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="thermik-timers", daemon=True)
        self._thread.start()

    def call_later(self, seconds: float, callback: Callable[[], None]) -> TimerHandle:
        """Run ``callback`` on the timer thread after ``seconds`` (at once if not positive)."""
        handle = TimerHandle(time.monotonic() + max(0.0, seconds), callback)
        with self._wake:
            heapq.heappush(self._heap, (handle.deadline, next(self._order), handle))
            if self._heap[0][2] is handle:
                self._wake.notify()
        return handle

    def tell_later(self, seconds: float, actor: pykka.ActorRef[Any], message: Any) -> TimerHandle:
        """Tell ``message`` to ``actor`` after ``seconds``; an actor gone by then is skipped."""
        return self.call_later(seconds, lambda: _tell_if_alive(actor, message))

    def stop(self) -> None:
        """Stop the thread; pending callbacks never run. Idempotent."""
        with self._wake:
            self._stopped = True
            self._heap.clear()
            self._wake.notify()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        pin_this_thread(self._cpus)
        while True:
            with self._wake:
                due = self._next_due()
                if due is None:
                    return
            if not due.cancelled:
                try:
                    due.callback()
                except Exception:  # a callback's bug must not stop every other timer
                    LOG.exception("timer callback failed")

    def _next_due(self) -> TimerHandle | None:
        while not self._stopped:
            if not self._heap:
                self._wake.wait()
                continue
            wait = self._heap[0][0] - time.monotonic()
            if wait > 0:
                self._wake.wait(wait)
                continue
            return heapq.heappop(self._heap)[2]
        return None


def _nothing() -> None:
    pass


def _tell_if_alive(actor: pykka.ActorRef[Any], message: Any) -> None:
    with contextlib.suppress(pykka.ActorDeadError):
        actor.tell(message)
