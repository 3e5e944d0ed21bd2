"""SQLite's one writer connection, shared by every thread of the process, with group commit.

SQLite admits one writer at a time, so the process writes through one connection. Each
commit costs more than the short writes of a resource action (``BEGIN IMMEDIATE`` takes the
database lock, ``COMMIT`` appends every page the transaction touched to the WAL, and the WAL is
checkpointed every thousand pages), and many actors write at once. So writes that arrive while
another transaction runs queue up, and the next transaction runs them all, in arrival order,
one ``BEGIN``/``COMMIT`` and one copy of the hot pages per batch.

Each write keeps the semantics of a transaction of its own: it sees the writes before it, it
returns only once its batch is committed, and when it raises nothing of it stays: the batch is
then rolled back and each of its writes runs again alone (so a write's function must be safe to
run twice, as on the server databases, whose deadlocked transactions are retried). A failed
``COMMIT`` fails every write of its transaction.
"""

from __future__ import annotations

import collections
import contextlib
import sqlite3
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from sqlalchemy import Connection, exc

T = TypeVar("T")
Work = Callable[[Connection], T]

#: At most this many writes share a transaction (each waits for the whole batch to commit).
MAX_BATCH = 64


class _Ticket(Generic[T]):
    """One queued write: its work, then its outcome, and the lock its caller waits on."""

    __slots__ = ("error", "leads", "ready", "result", "work")

    def __init__(self, work: Work[T]) -> None:
        self.work = work
        self.result: T | None = None
        self.error: BaseException | None = None
        #: Set when the caller wakes up to run the next batch rather than with its outcome.
        self.leads = False
        # A bare lock, acquired once here and released by whoever ends the wait: the cheapest
        # one-shot signal between threads (an Event costs a Condition and its own lock).
        self.ready = threading.Lock()
        self.ready.acquire()

    def outcome(self) -> T:
        if self.error is not None:
            raise self.error
        return self.result  # type: ignore[return-value]


class SqliteWriter:
    """Runs write transactions on one SQLite connection, batching those that queue up."""

    def __init__(self, connect: Callable[[], Connection]) -> None:
        self._connect = connect
        self._connection: Connection | None = None
        self._queue: collections.deque[_Ticket[Any]] = collections.deque()
        self._lock = threading.Lock()
        #: Whether a thread runs batches now (it hands over to the next queued caller).
        self._leading = False
        #: Held while a batch runs: closing the connection waits for it.
        self._running = threading.Lock()
        #: Transactions begun so far (what batching saves shows as fewer of them than writes).
        self.transactions = 0

    def write(self, work: Work[T]) -> T:
        """Run ``work`` in a write transaction of its own or shared; its result or exception."""
        ticket = _Ticket(work)
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

    def close(self) -> None:
        """Close the connection (the next write opens another)."""
        with self._running:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def _lead(self) -> None:
        """Run one batch (it holds our own ticket: it is at the head of the queue), then wake
        its callers and hand the lead to the next queued caller, if any."""
        with self._lock:
            batch = [self._queue.popleft() for _ in range(min(MAX_BATCH, len(self._queue)))]
        with self._running:
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

    def _run(self, batch: list[_Ticket[Any]]) -> None:
        try:
            writer = self._writer()
            driver = writer.connection.driver_connection
            on_driver(driver, "BEGIN IMMEDIATE")
        except BaseException as error:
            for ticket in batch:
                ticket.error = error
            return
        self.transactions += 1
        if len(batch) == 1:
            _run_alone(batch[0], writer)
            self._commit(batch, writer)
            return
        if _run_together(batch, writer):
            self._commit(batch, writer)
            return
        # A write raised: the batch's transaction is rolled back and each write runs again in
        # a transaction of its own (a write may be run again: the server databases retry a
        # transaction that lost a deadlock the same way). A savepoint per write would spare
        # the re-runs, at two more statements on every write that succeeds.
        for ticket in batch:
            ticket.result, ticket.error = None, None
            _on_driver_or_fail(ticket, writer, "BEGIN IMMEDIATE")
            if ticket.error is None:
                self.transactions += 1
                _run_alone(ticket, writer)
                self._commit([ticket], writer)

    @staticmethod
    def _commit(batch: list[_Ticket[Any]], writer: Connection) -> None:
        if all(ticket.error is not None for ticket in batch):
            return  # rolled back already
        try:
            _commit(writer)
        except BaseException as error:
            _roll_back(writer)
            for ticket in batch:
                if ticket.error is None:
                    ticket.error = error

    def _writer(self) -> Connection:
        if self._connection is None or self._connection.invalidated:
            if self._connection is not None:
                self._connection.close()
            self._connection = self._connect()
        return self._connection


def _run_alone(ticket: _Ticket[Any], writer: Connection) -> None:
    try:
        ticket.result = ticket.work(writer)
    except BaseException as error:
        ticket.error = error
        _roll_back(writer)


def _run_together(batch: list[_Ticket[Any]], writer: Connection) -> bool:
    """Run the batch's writes in the open transaction; False (rolled back) if one raised."""
    for ticket in batch:
        try:
            ticket.result = ticket.work(writer)
        except BaseException:
            _roll_back(writer)
            return False
    return True


def _on_driver_or_fail(ticket: _Ticket[Any], writer: Connection, sql: str) -> None:
    """Run ``sql`` on the driver; a failure is the ticket's outcome."""
    try:
        on_driver(writer.connection.driver_connection, sql)
    except BaseException as error:
        ticket.error = error


def _commit(writer: Connection) -> None:
    driver = writer.connection.driver_connection
    # A statement run through SQLAlchemy joined the driver's transaction (see the engine's
    # ``begin`` listener) and must be ended through SQLAlchemy for its bookkeeping.
    if writer.in_transaction():
        writer.commit()
    elif driver.in_transaction:  # type: ignore[union-attr]
        on_driver(driver, "COMMIT")


def _roll_back(writer: Connection) -> None:
    driver = writer.connection.driver_connection
    # The failure that got here is what the callers must see, not a failed rollback.
    with contextlib.suppress(sqlite3.Error, exc.SQLAlchemyError):
        if writer.in_transaction():
            writer.rollback()
        elif driver.in_transaction:  # type: ignore[union-attr]
            on_driver(driver, "ROLLBACK")


def on_driver(driver: Any, sql: str) -> None:
    """Run a transaction statement straight on the sqlite3 connection."""
    try:
        driver.execute(sql)
    except sqlite3.Error as error:
        raise exc.OperationalError(sql, None, error) from error
