"""Leader-follower batching of write transactions: the writes that queue up while one batch
runs form the next, run by one of their own callers.

Each caller thread submits a :class:`Ticket` and either leads (no batch runs: it runs a batch
itself, its own ticket first) or waits. A leader that finished hands the lead to the first
ticket queued meanwhile, whose caller wakes up to run the next batch; the others wake with
their outcome. So no thread of its own runs the batches, a lone write runs at once on its
caller's thread, and the batches grow with the concurrency that makes them worth it.

What a batch means (one transaction, savepoints, re-runs) is the runner's: the SQLite writer
(:mod:`~thermik.persistence.sqlite_writer`) and the server databases' group commit
(:mod:`~thermik.persistence.group_commit`).
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from sqlalchemy import Connection

T = TypeVar("T")
Work = Callable[[Connection], T]


class Ticket(Generic[T]):
    """One queued write: its work, then its outcome, and the lock its caller waits on."""

    __slots__ = ("error", "lazy", "leads", "ready", "result", "whole", "work")

    def __init__(self, work: Work[T], lazy: bool = False, *, whole: bool = False) -> None:
        self.work = work
        self.lazy = lazy
        #: The work writes in one statement, whole by itself (``Database.write``).
        self.whole = whole
        self.result: T | None = None
        self.error: BaseException | None = None
        #: Set when the caller wakes up to run the next batch rather than with its outcome.
        self.leads = False
        # A bare lock, acquired once here and released by whoever ends the wait: the cheapest
        # one-shot signal between threads (an Event costs a Condition and its own lock).
        self.ready = threading.Lock()
        self.ready.acquire()

    def outcome(self) -> T:
        """The work's result, or its exception raised."""
        if self.error is not None:
            raise self.error
        return self.result  # type: ignore[return-value]


Runner = Callable[[list[Ticket[Any]]], None]


class GroupQueue:
    """Runs submitted tickets in batches of up to ``max_batch``, one batch at a time."""

    def __init__(self, run: Runner, max_batch: int) -> None:
        self._run = run
        self._max_batch = max_batch
        self._queue: collections.deque[Ticket[Any]] = collections.deque()
        self._lock = threading.Lock()
        #: Whether a thread runs batches now (it hands over to the next queued caller).
        self._leading = False

    @property
    def waiting(self) -> int:
        """How many tickets wait for a batch (read without a lock: a hint)."""
        return len(self._queue)

    @property
    def busy(self) -> int:
        """How much waits or runs here now (a hint for spreading work, read without a lock)."""
        return len(self._queue) + self._leading

    def submit(self, ticket: Ticket[T]) -> T:
        """Run ``ticket`` in a batch; its work's result or exception."""
        with self._lock:
            self._queue.append(ticket)
            leads = not self._leading
            self._leading = True
        if not leads:
            ticket.ready.acquire()
            if not ticket.leads:
                return ticket.outcome()
        self._lead()
        return ticket.outcome()

    def _lead(self) -> None:
        """Run one batch (it holds our own ticket: it is at the head of the queue), then wake
        its callers and hand the lead to the next queued caller, if any."""
        with self._lock:
            batch = [self._queue.popleft() for _ in range(min(self._max_batch, len(self._queue)))]
        self._run(batch)
        with self._lock:
            successor = self._queue[0] if self._queue else None
            if successor is None:
                self._leading = False
            else:
                successor.leads = True
        for ticket in batch[1:]:
            ticket.ready.release()
        if successor is not None:
            successor.ready.release()
