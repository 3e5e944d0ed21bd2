"""How a write meets the server on PostgreSQL and MariaDB: a whole write run alone commits by
itself on PostgreSQL, a pooled connection is pinged only after it idled, and a write whose
connection was found dead before it committed runs again (one that may have committed does
not)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Connection

from tests import dbservers
from tests.contract.conftest import require_backend
from tests.contract.held_writes import Work, insert_value, stored_values
from thermik.conf.settings import DatabaseSettings
from thermik.errors import DatabaseUnavailable
from thermik.persistence.database import Database

#: Whether the connection is inside a transaction block that has written (on each server).
IN_TRANSACTION = {
    "postgresql": "SELECT pg_current_xact_id_if_assigned() IS NOT NULL",
    "mysql": "SELECT @@in_transaction = 1",
}


@pytest.fixture(params=[b for b in dbservers.BACKENDS if b != "sqlite"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """(backend, url) of a scratch database with a table ``t``."""
    require_backend(request.param)
    with dbservers.scratch_database(request.param, tmp_path) as url:
        setup = Database(DatabaseSettings(url))
        setup.write(lambda conn: conn.exec_driver_sql("CREATE TABLE t (v INTEGER UNIQUE)"))
        setup.dispose()
        yield request.param, url


def _insert_and_look(backend: str, value: int, seen: list[bool]) -> Work:
    """Insert ``value``, then note whether a transaction block holds that write."""

    def work(conn: Connection) -> int:
        insert_value(value)(conn)
        seen.append(bool(conn.exec_driver_sql(IN_TRANSACTION[backend]).scalar()))
        return value

    return work


@pytest.mark.parametrize("lazy", [False, True])
def test_a_whole_write_alone_is_committed_by_the_server_as_it_ends(
    server: tuple[str, str], lazy: bool
) -> None:
    backend, url = server
    db = Database(DatabaseSettings(url))
    try:
        seen: list[bool] = []
        assert db.write(_insert_and_look(backend, 1, seen), lazy=lazy, whole=True) == 1
        assert db.write(_insert_and_look(backend, 2, seen), lazy=lazy) == 2
        # MariaDB runs it in a transaction: PyMySQL's autocommit switch costs round trips.
        assert seen == [backend != "postgresql", True]
        assert stored_values(db) == [1, 2]
    finally:
        db.dispose()


def _counted(value: int, runs: list[int]) -> Work:
    def work(conn: Connection) -> int:
        runs.append(value)
        return insert_value(value)(conn)

    return work


@pytest.mark.parametrize(
    ("ping_after_idle_s", "runs_expected"),
    [(0.0, [2]), (3600.0, [2, 2])],
    ids=["pinged-first", "run-again"],
)
def test_a_write_on_a_dropped_connection_is_carried_out_once(
    server: tuple[str, str], ping_after_idle_s: float, runs_expected: list[int]
) -> None:
    backend, url = server
    db = Database(DatabaseSettings(url, pool_size=1), ping_after_idle_s=ping_after_idle_s)
    try:
        db.write(insert_value(1))
        dbservers.drop_connections(backend, url)
        runs: list[int] = []
        assert db.write(_counted(2, runs)) == 2
        # Pinged, the dead connection is replaced before the write; unpinged, the write
        # finds it dead at its first statement and runs again on a new one.
        assert runs == runs_expected
        assert stored_values(db) == [1, 2]
    finally:
        db.dispose()


def test_a_whole_write_on_a_dropped_connection_fails_and_is_not_run_again(
    server: tuple[str, str],
) -> None:
    backend, url = server
    db = Database(DatabaseSettings(url, pool_size=1), ping_after_idle_s=3600.0)
    try:
        db.write(insert_value(1))
        dbservers.drop_connections(backend, url)
        runs: list[int] = []
        if backend != "postgresql":
            # In a transaction (see above): found dead before its COMMIT, it runs again.
            assert db.write(_counted(2, runs), whole=True) == 2
            assert runs == [2, 2]
            return
        # Committed by itself, the statement may have been carried out before the
        # connection died: running it again could do it twice.
        with pytest.raises(DatabaseUnavailable):
            db.write(_counted(2, runs), whole=True)
        assert runs == [2]
        assert db.write(insert_value(3)) == 3
        assert stored_values(db) == [1, 3]
    finally:
        db.dispose()
