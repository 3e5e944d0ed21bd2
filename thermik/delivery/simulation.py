"""Processes that wait in simulated or real time, and a discrete-event loop to run them.

A *process* is a generator that yields :class:`Delay` values whenever it would wait (network
latency, a backoff) and returns its result. The same process runs in two ways:

- :func:`run_blocking` sleeps for real, which is how the fake Swift backend serves an actor's
  executor or an HTTP client;
- :class:`Simulation` runs many processes on one virtual clock, deterministically and without
  sleeping, which is how the race tests play a thousand rounds of clock skew in seconds.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import time
from collections.abc import Callable, Generator
from typing import Any, TypeVar

from thermik.errors import ThermikError

T = TypeVar("T")


@dataclasses.dataclass(frozen=True, slots=True)
class Delay:
    """A process asks to be resumed after ``seconds``."""

    seconds: float


Process = Generator[Delay, None, T]
"""A computation that yields :class:`Delay` while it waits and returns a ``T``."""


def run_blocking(process: Process[T], sleep: Callable[[float], None] = time.sleep) -> T:
    """Run ``process`` to completion in the calling thread, sleeping for every delay."""
    try:
        step = next(process)
        while True:
            if step.seconds > 0:
                sleep(step.seconds)
            step = process.send(None)
    except StopIteration as stop:
        result: T = stop.value
        return result


class Simulation:
    """A virtual clock and an event queue; nothing sleeps, time jumps to the next event.

    Events at the same instant run in the order they were scheduled, so a run is a pure
    function of the processes and their random seeds.
    """

    def __init__(self, start: float = 1_000_000.0) -> None:
        self._now = start
        self._queue: list[tuple[float, int, Callable[[], None]]] = []
        self._order = itertools.count()
        self.events = 0

    def clock(self) -> float:
        """The current virtual time; pass this where a ``clock()`` callable is expected."""
        return self._now

    @property
    def now(self) -> float:
        """The current virtual time."""
        return self._now

    def call_later(self, delay: float, action: Callable[[], None]) -> None:
        """Run ``action`` after ``delay`` virtual seconds."""
        heapq.heappush(self._queue, (self._now + max(delay, 0.0), next(self._order), action))

    def spawn(
        self,
        process: Process[T],
        on_done: Callable[[T], None],
        on_error: Callable[[ThermikError], None] | None = None,
    ) -> None:
        """Start ``process`` now; its result goes to ``on_done``, its ThermikError to
        ``on_error`` (any other exception is a bug and escapes :meth:`run`)."""
        self.call_later(0.0, lambda: self._step(process, on_done, on_error))

    def _step(
        self,
        process: Process[Any],
        on_done: Callable[[Any], None],
        on_error: Callable[[ThermikError], None] | None,
    ) -> None:
        try:
            step = process.send(None)
        except StopIteration as stop:
            on_done(stop.value)
            return
        except ThermikError as exc:
            if on_error is None:
                raise
            on_error(exc)
            return
        self.call_later(step.seconds, lambda: self._step(process, on_done, on_error))

    def run(self, until: float | None = None, max_events: int = 10_000_000) -> None:
        """Process events until none are left, the clock passes ``until``, or
        ``max_events`` ran (a guard against processes that never settle)."""
        budget = max_events
        while self._queue and budget > 0:
            when, _, action = self._queue[0]
            if until is not None and when > until:
                self._now = until
                return
            heapq.heappop(self._queue)
            self._now = max(self._now, when)
            self.events += 1
            budget -= 1
            action()
        if until is not None and not self._queue:
            self._now = max(self._now, until)
