"""Group commit on SQLite: writes that queue up while a transaction runs share the next one,
and each still behaves as a transaction of its own.

The first write holds the writer until the others have queued (it waits on an event inside its
work), so what the next transaction holds is known, with no timing assumption.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import Connection, text

from thermik.conf.settings import DatabaseSettings
from thermik.persistence.database import Database

QUEUED = 5


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = Database(DatabaseSettings(f"sqlite:///{tmp_path / 'g.sqlite'}"))
    database.write(lambda conn: conn.exec_driver_sql("CREATE TABLE t (v INTEGER UNIQUE)"))
    yield database
    database.dispose()


def insert_value(value: int) -> Callable[[Connection], int]:
    def work(conn: Connection) -> int:
        conn.exec_driver_sql(f"INSERT INTO t (v) VALUES ({value})")
        return value

    return work


def failing_insert(value: int) -> Callable[[Connection], int]:
    def work(conn: Connection) -> int:
        conn.exec_driver_sql(f"INSERT INTO t (v) VALUES ({value})")
        raise ValueError(f"write {value} refused")

    return work


def stored_values(db: Database) -> list[int]:
    rows = db.read(lambda conn: conn.execute(text("SELECT v FROM t ORDER BY v")).all())
    return [row.v for row in rows]


def _queue_behind_a_held_write(
    db: Database, works: list[Callable[[Connection], int]]
) -> dict[int, object]:
    """Run ``works`` from threads while a first write holds the writer; their outcomes."""
    holding, release = threading.Event(), threading.Event()

    def hold(conn: Connection) -> int:
        holding.set()
        release.wait(10)
        return 0

    outcomes: dict[int, object] = {}

    def call(index: int, work: Callable[[Connection], int]) -> None:
        try:
            outcomes[index] = db.write(work)
        except Exception as error:  # the outcome under test
            outcomes[index] = error

    holder = threading.Thread(target=call, args=(-1, hold))
    holder.start()
    assert holding.wait(10)
    threads = [threading.Thread(target=call, args=(i, w)) for i, w in enumerate(works)]
    for number, thread in enumerate(threads, 1):
        thread.start()
        # One at a time, so that the queue holds the writes in the order given.
        deadline = time.monotonic() + 10
        while _queued(db) < number and time.monotonic() < deadline:
            time.sleep(0.001)
    release.set()
    for thread in [holder, *threads]:
        thread.join(10)
    return outcomes


def _queued(db: Database) -> int:
    # How many writes wait is visible only inside the writer.
    writer = db._writer
    assert writer is not None
    return len(writer._queue)


def test_writes_queued_behind_a_transaction_share_the_next(db: Database) -> None:
    before = db.write_transactions
    assert before is not None
    outcomes = _queue_behind_a_held_write(db, [insert_value(i) for i in range(QUEUED)])
    assert [outcomes[i] for i in range(QUEUED)] == list(range(QUEUED))
    assert stored_values(db) == list(range(QUEUED))
    # The held write's transaction, then one for all the queued writes.
    assert db.write_transactions == before + 2


def test_a_failing_write_leaves_nothing_and_the_others_commit(db: Database) -> None:
    works = [insert_value(1), failing_insert(2), insert_value(3)]
    outcomes = _queue_behind_a_held_write(db, works)
    assert outcomes[0] == 1
    assert isinstance(outcomes[1], ValueError)
    assert str(outcomes[1]) == "write 2 refused"
    assert outcomes[2] == 3
    assert stored_values(db) == [1, 3]


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
