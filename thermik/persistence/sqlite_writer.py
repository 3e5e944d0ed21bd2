"""SQLite's one writer connection, shared by every thread of the process, with group commit.

SQLite admits one writer at a time, so the process writes through one connection. Each
commit costs more than the short writes of a resource action (``BEGIN IMMEDIATE`` takes the
database lock, ``COMMIT`` appends every page the transaction touched to the WAL, two system
calls a page), and many actors write at once. So writes that arrive while
another transaction runs queue up, and the next transaction runs them all, in arrival order,
one ``BEGIN``/``COMMIT`` and one copy of the hot pages per batch.

Each write keeps the semantics of a transaction of its own: it sees the writes before it, it
returns only once its batch is committed, and when it raises nothing of it stays: the batch is
then rolled back and each of its writes runs again alone (so a write's function must be safe to
run twice, as on the server databases, whose deadlocked transactions are retried). A failed
``COMMIT`` fails every write of its transaction.

A write may also be *lazy* (``write(work, lazy=True)``): it returns once its statements ran,
and its transaction stays open for the lazy writes after it, committed within
:data:`LINGER_SECONDS` (by a flusher thread), before any ordinary write or read of the process
runs, at :data:`MAX_LAZY` writes, or when the connection closes. The engine records a store-only
resource's action that way: such an action has no effect outside the database, so what acts on
it (the next store-only resource of a chain) is recorded in the same transaction or a later
one, and anything with an effect outside (a cloud call after its lock, a stack's final state)
is an ordinary write that commits it first. A crash may lose the last lazy writes, never one
without those after it: the resumed traversal then finds those resources as they were before
and converges them again. Each lazy write runs in a savepoint, so one that raises leaves the
others. If their ``COMMIT`` fails, writes that were already acknowledged are lost: the engine's
memory no longer matches its database, so the writer refuses every later write (as if the
engine had died; restarting it resumes from what the database holds) and says why.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import Connection, exc

from thermik.errors import DatabaseUnavailable
from thermik.persistence.group_queue import GroupQueue, Ticket, Work

T = TypeVar("T")

LOG = logging.getLogger(__name__)

#: At most this many writes share a transaction (each waits for the whole batch to commit).
MAX_BATCH = 64
#: Lazy writes stay uncommitted at most this long (what other processes see lags as much).
LINGER_SECONDS = 0.005
#: Lazy writes are committed once this many share their transaction.
MAX_LAZY = 256
#: An idle flusher thread ends after this long.
FLUSHER_IDLE_SECONDS = 1.0


class SqliteWriter:
    """Runs write transactions on one SQLite connection, batching those that queue up."""

    def __init__(self, connect: Callable[[], Connection]) -> None:
        self._connect = connect
        self._connection: Connection | None = None
        self._queue = GroupQueue(self._run_batch, MAX_BATCH)
        self._lock = threading.Lock()
        #: Held while a batch runs: closing the connection waits for it.
        self._running = threading.Lock()
        #: Transactions begun so far (what batching saves shows as fewer of them than writes).
        self.transactions = 0
        #: Whether lazy writes hold a transaction open, and how many of them it holds.
        self._open = False
        self._uncommitted = 0
        #: Set while lazy writes wait for the flusher thread (started on demand).
        self._due = threading.Event()
        self._flusher: threading.Thread | None = None
        #: Why acknowledged lazy writes were lost: every later write is refused with it.
        self._lost: DatabaseUnavailable | None = None

    def write(self, work: Work[T], *, lazy: bool = False) -> T:
        """Run ``work`` in a write transaction of its own or shared; its result or exception.

        ``lazy``: return before the commit, which follows soon (see the module's docstring).
        """
        return self._queue.submit(Ticket(work, lazy))

    def commit_lazy(self) -> None:
        """Commit the lazy writes acknowledged so far: a read that follows sees them. (Not
        from inside a write's work, which holds the writer this waits for.)"""
        if not self._uncommitted:
            return
        with self._running:
            if self._uncommitted:
                self._commit_lazy()

    def close(self) -> None:
        """Commit lazy writes and close the connection (the next write opens another)."""
        with self._running:
            if self._uncommitted:
                self._commit_lazy()
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def _run_batch(self, batch: list[Ticket[Any]]) -> None:
        with self._running:
            self._run(batch)

    def _run(self, batch: list[Ticket[Any]]) -> None:
        lazy = all(ticket.lazy for ticket in batch)
        if self._open and not lazy:
            self._commit_lazy()
        if self._lost is not None:
            for ticket in batch:
                ticket.error = self._lost
            return
        if lazy:
            self._run_lazy(batch)
            return
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

    def _run_lazy(self, batch: list[Ticket[Any]]) -> None:
        """Run lazy writes in the open transaction (begun if needed), each in a savepoint."""
        for ticket in batch:
            writer = self._begin_lazy(ticket)
            if writer is None:
                continue
            _run_saved(ticket, writer)
            if ticket.error is None:
                self._uncommitted += 1
            elif not writer.connection.driver_connection.in_transaction:  # type: ignore[union-attr]
                # SQLite rolled the whole transaction back (a full disk, an I/O error).
                self._vanished(writer, ticket.error)
        if self._open and not self._uncommitted:
            _roll_back(self._writer())
            self._open = False
        elif self._uncommitted >= MAX_LAZY:
            self._commit_lazy()
        elif self._open:
            self._wake_flusher()
        if self._lost is not None:
            for ticket in batch:
                if ticket.error is None:
                    ticket.error = self._lost

    def _begin_lazy(self, ticket: Ticket[Any]) -> Connection | None:
        """The writer in the open lazy transaction; ``None`` when it failed the ticket."""
        if self._lost is not None:
            ticket.error = self._lost
            return None
        try:
            writer = self._writer()
            if not self._open:
                on_driver(writer.connection.driver_connection, "BEGIN IMMEDIATE")
                self._open = True
                self.transactions += 1
        except BaseException as error:
            ticket.error = error
            return None
        return writer

    def _vanished(self, writer: Connection, error: BaseException) -> None:
        _roll_back(writer)
        count, self._open, self._uncommitted = self._uncommitted, False, 0
        if count:
            self._lose(count, error)

    def _commit_lazy(self) -> None:
        """Commit the open lazy transaction; if that fails, refuse every later write."""
        writer, count = self._connection, self._uncommitted
        self._open, self._uncommitted = False, 0
        if writer is None:
            return
        try:
            _commit(writer)
        except BaseException as error:
            _roll_back(writer)
            self._lose(count, error)

    def _lose(self, count: int, error: BaseException) -> None:
        self._lost = DatabaseUnavailable(
            f"SQLite lost {count} acknowledged writes (their COMMIT failed: {error}); writes "
            "are refused until the engine restarts and resumes from the database"
        )
        LOG.critical("%s", self._lost)

    def _wake_flusher(self) -> None:
        with self._lock:
            self._due.set()
            if self._flusher is None:
                self._flusher = threading.Thread(
                    target=self._flush_when_due, name="thermik-sqlite-commit", daemon=True
                )
                self._flusher.start()

    def _flush_when_due(self) -> None:
        """The flusher thread: commits lazy writes ``LINGER_SECONDS`` after they began to
        wait; ends when idle (the next lazy write starts another)."""
        while True:
            if not self._due.wait(FLUSHER_IDLE_SECONDS):
                with self._lock:
                    if not self._due.is_set():
                        self._flusher = None
                        return
                continue
            time.sleep(LINGER_SECONDS)
            self._due.clear()
            try:
                self.commit_lazy()
            except Exception:  # a closed or broken connection: the next write reports it
                LOG.exception("SQLite: lazy writes not committed")

    @staticmethod
    def _commit(batch: list[Ticket[Any]], writer: Connection) -> None:
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


def _run_alone(ticket: Ticket[Any], writer: Connection) -> None:
    try:
        ticket.result = ticket.work(writer)
    except BaseException as error:
        ticket.error = error
        _roll_back(writer)


def _run_saved(ticket: Ticket[Any], writer: Connection) -> None:
    """Run a lazy write in a savepoint of the open transaction: undone alone if it raises."""
    driver = writer.connection.driver_connection
    try:
        on_driver(driver, "SAVEPOINT lazy")
    except BaseException as error:
        ticket.error = error
        return
    try:
        ticket.result = ticket.work(writer)
    except BaseException as error:
        ticket.error = error
        # The failure that got here is what the caller must see, not a failed rollback.
        with contextlib.suppress(sqlite3.Error, exc.SQLAlchemyError):
            on_driver(driver, "ROLLBACK TO lazy")
    with contextlib.suppress(sqlite3.Error, exc.SQLAlchemyError):
        on_driver(driver, "RELEASE lazy")


def _run_together(batch: list[Ticket[Any]], writer: Connection) -> bool:
    """Run the batch's writes in the open transaction; False (rolled back) if one raised."""
    for ticket in batch:
        try:
            ticket.result = ticket.work(writer)
        except BaseException:
            _roll_back(writer)
            return False
    return True


def _on_driver_or_fail(ticket: Ticket[Any], writer: Connection, sql: str) -> None:
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
