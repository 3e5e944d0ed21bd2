"""Group commit on PostgreSQL and MariaDB: lazy writes that queue up while a batch runs share
the next transaction, each still behaves as a transaction of its own, and each is committed
(seen by another connection) when it returns.

The first write holds its lane until the others have queued (:mod:`tests.contract.held_writes`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Connection, exc

from tests import dbservers
from tests.contract.conftest import require_backend
from tests.contract.held_writes import (
    Work,
    check_a_failing_write_leaves_nothing,
    insert_value,
    queue_behind_a_held_write,
    stored_values,
)
from thermik.conf.settings import DatabaseSettings
from thermik.persistence.database import Database
from thermik.persistence.group_commit import GroupCommit

QUEUED = 5


@pytest.fixture(params=[b for b in dbservers.BACKENDS if b != "sqlite"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    require_backend(request.param)
    with dbservers.scratch_database(request.param, tmp_path) as found:
        setup = Database(DatabaseSettings(found))
        setup.write(lambda conn: conn.exec_driver_sql("CREATE TABLE t (v INTEGER UNIQUE)"))
        setup.dispose()
        yield found


def _database(url: str, lanes: int) -> Database:
    return Database(DatabaseSettings(url, pool_size=2), lanes=lanes)


def _group(db: Database) -> GroupCommit:
    group = db._group
    assert group is not None
    return group


def _queue_behind_a_held_write(db: Database, works: list[Work]) -> dict[int, object]:
    """Run ``works`` as lazy writes from threads while a first one holds the only lane."""
    lane = _group(db)._lanes[0]
    return queue_behind_a_held_write(db, works, lambda: lane.waiting, lazy=True)


def test_lazy_writes_queued_behind_a_batch_share_the_next_and_are_committed(url: str) -> None:
    db, other = _database(url, lanes=1), _database(url, lanes=1)
    try:
        outcomes = _queue_behind_a_held_write(db, [insert_value(i) for i in range(QUEUED)])
        assert [outcomes[i] for i in range(QUEUED)] == list(range(QUEUED))
        # The held write ran alone; the queued ones shared one transaction.
        assert (_group(db).transactions, _group(db).writes) == (1, QUEUED)
        assert stored_values(other) == list(range(QUEUED))
    finally:
        db.dispose()
        other.dispose()


def test_a_failing_write_leaves_nothing_and_the_others_commit(url: str) -> None:
    db = _database(url, lanes=1)
    try:
        check_a_failing_write_leaves_nothing(
            lambda works: _queue_behind_a_held_write(db, works), lambda: stored_values(db)
        )
    finally:
        db.dispose()


def test_a_write_sees_the_writes_before_it_in_its_batch(url: str) -> None:
    def count(conn: Connection) -> int:
        return int(conn.exec_driver_sql("SELECT COUNT(*) FROM t").scalar_one())

    db = _database(url, lanes=1)
    try:
        outcomes = _queue_behind_a_held_write(db, [insert_value(7), insert_value(8), count])
        assert outcomes[2] == 2
    finally:
        db.dispose()


def test_a_database_error_reaches_only_its_caller(url: str) -> None:
    db = _database(url, lanes=1)
    try:
        db.write(insert_value(5))
        outcomes = _queue_behind_a_held_write(db, [insert_value(5), insert_value(6)])
        assert isinstance(outcomes[0], exc.IntegrityError)
        assert outcomes[1] == 6
        assert stored_values(db) == [5, 6]
    finally:
        db.dispose()


def test_a_held_batch_does_not_hold_up_the_other_lanes(url: str) -> None:
    db = _database(url, lanes=2)
    holding, release = threading.Event(), threading.Event()

    def hold(conn: Connection) -> int:
        holding.set()
        release.wait(10)
        return 0

    holder = threading.Thread(target=lambda: db.write(hold, lazy=True))
    holder.start()
    try:
        assert holding.wait(10)
        assert db.write(insert_value(9), lazy=True) == 9
        assert stored_values(db) == [9]
    finally:
        release.set()
        holder.join(10)
        db.dispose()
