"""Group commit on PostgreSQL and MariaDB: the store-only records that arrive together share
one transaction.

A wide stack settles many resources at once, and each records its action in a transaction of
its own: a pool checkout (with its pre-ping round trip), a ``BEGIN``, its statements and a
``COMMIT`` that waits for the server's fsync. The records that queue up while one such
transaction runs can share the next: one checkout, one ``BEGIN``, one ``COMMIT`` for all. A
profile of a 500-wide create on PostgreSQL spent a fifth of the process's CPU around the
statements, and the commits are most of a resource's wall time there.

Only the writes the engine marks lazy batch (:meth:`Database.write`): a store-only action's
record, which has no effect outside the database. Each returns once its transaction has
committed (unlike SQLite's lazy writes, it is never acknowledged before), so another engine
reading the database sees what the caller was told. Several batches run at once, each on a
connection of its own (the *lanes*), so that one batch's round trips do not hold up the rest.

If a write of a batch raises, the batch is rolled back and each of its writes runs again in a
transaction of its own, with the retries every server transaction has: a write's work must be
safe to run twice, as it already is for a lost deadlock. A failed ``COMMIT`` fails every write
of its batch (whether it committed is unknown, as for a lone transaction).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import Connection, exc

from thermik.persistence.group_queue import GroupQueue, Ticket, Work

T = TypeVar("T")

#: At most this many writes share a transaction (each waits for the whole batch to commit).
MAX_BATCH = 32

#: Runs one work in a transaction of its own: (work, whole) as for ``Database.write``.
Alone = Callable[[Work[Any], bool], Any]


class GroupCommit:
    """Runs lazy writes in shared transactions on ``lanes`` connections at a time.

    ``connect`` checks a connection out of the pool; ``alone`` runs one work in a transaction
    of its own, with retries (the database's ordinary write); a whole one (see
    :meth:`Database.write`) that runs alone may commit by itself.
    """

    def __init__(self, connect: Callable[[], Connection], alone: Alone, lanes: int) -> None:
        self._connect = connect
        self._alone = alone
        self._lanes = [GroupQueue(self._run, MAX_BATCH) for _ in range(lanes)]
        self._counting = threading.Lock()
        #: Shared transactions begun so far, and the writes they held (what batching saves).
        self.transactions = 0
        self.writes = 0

    def write(self, work: Work[T], *, whole: bool = False) -> T:
        """Run ``work`` in a transaction shared with the writes queued beside it."""
        return self._lane().submit(Ticket(work, whole=whole))

    def _lane(self) -> GroupQueue:
        # An idle lane if there is one, else the least busy: its queue is the next batch.
        return min(self._lanes, key=lambda lane: lane.busy)

    def _run(self, batch: list[Ticket[Any]]) -> None:
        if len(batch) == 1:
            _run_alone(batch[0], self._alone)
            return
        try:
            together = self._together(batch)
        except BaseException as error:
            # The checkout, BEGIN or COMMIT failed: the statements' fate is the batch's.
            for ticket in batch:
                ticket.result, ticket.error = None, error
            return
        if not together:
            for ticket in batch:
                _run_alone(ticket, self._alone)

    def _together(self, batch: list[Ticket[Any]]) -> bool:
        """Run the batch in one transaction; False (rolled back) if a write raised."""
        with self._connect() as connection:
            transaction = connection.begin()
            for ticket in batch:
                try:
                    ticket.result = ticket.work(connection)
                except BaseException:
                    # The re-runs alone report what went wrong, not a failed rollback (the
                    # connection is then invalidated and the pool replaces it).
                    with contextlib.suppress(exc.SQLAlchemyError):
                        transaction.rollback()
                    return False
            transaction.commit()
        with self._counting:
            self.transactions += 1
            self.writes += len(batch)
        return True


def _run_alone(ticket: Ticket[Any], alone: Alone) -> None:
    ticket.result, ticket.error = None, None
    try:
        ticket.result = alone(ticket.work, ticket.whole)
    except BaseException as error:
        ticket.error = error
