"""Group commit on SQLite: writes that queue up while a transaction runs share the next one,
and each still behaves as a transaction of its own.

The first write holds the writer until the others have queued (:mod:`tests.contract.held_writes`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import Connection

from tests.contract.held_writes import (
    check_a_failing_write_leaves_nothing,
    insert_value,
    queue_behind_a_held_write,
    stored_values,
)
from thermik.conf.settings import DatabaseSettings
from thermik.persistence.database import Database

QUEUED = 5


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = Database(DatabaseSettings(f"sqlite:///{tmp_path / 'g.sqlite'}"))
    database.write(lambda conn: conn.exec_driver_sql("CREATE TABLE t (v INTEGER UNIQUE)"))
    yield database
    database.dispose()


def _queue_behind_a_held_write(
    db: Database, works: list[Callable[[Connection], int]]
) -> dict[int, object]:
    return queue_behind_a_held_write(db, works, lambda: _queued(db))


def _queued(db: Database) -> int:
    # How many writes wait is visible only inside the writer.
    writer = db._writer
    assert writer is not None
    return writer._queue.waiting


def test_writes_queued_behind_a_transaction_share_the_next(db: Database) -> None:
    before = db.write_transactions
    assert before is not None
    outcomes = _queue_behind_a_held_write(db, [insert_value(i) for i in range(QUEUED)])
    assert [outcomes[i] for i in range(QUEUED)] == list(range(QUEUED))
    assert stored_values(db) == list(range(QUEUED))
    # The held write's transaction, then one for all the queued writes.
    assert db.write_transactions == before + 2


def test_a_failing_write_leaves_nothing_and_the_others_commit(db: Database) -> None:
    check_a_failing_write_leaves_nothing(
        lambda works: _queue_behind_a_held_write(db, works), lambda: stored_values(db)
    )


def test_a_write_sees_the_writes_before_it_in_its_batch(db: Database) -> None:
    def count(conn: Connection) -> int:
        return int(conn.exec_driver_sql("SELECT COUNT(*) FROM t").scalar_one())

    outcomes = _queue_behind_a_held_write(db, [insert_value(7), insert_value(8), count])
    assert outcomes[2] == 2


def test_a_database_error_reaches_only_its_caller(db: Database) -> None:
    db.write(insert_value(5))
    outcomes = _queue_behind_a_held_write(db, [insert_value(5), insert_value(6)])
    assert "UNIQUE" in str(outcomes[0])
    assert outcomes[1] == 6
    assert stored_values(db) == [5, 6]
