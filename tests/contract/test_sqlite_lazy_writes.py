"""Lazy writes on SQLite: acknowledged before their commit, committed soon, before any other
write or read of the process, together with the lazy writes after them, or not at all."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import exc

from tests.contract.held_writes import (
    failing_insert,
    insert_value,
    stored_values,
)
from thermik.conf.settings import DatabaseSettings
from thermik.errors import DatabaseUnavailable
from thermik.persistence import sqlite_writer
from thermik.persistence.database import Database

WAIT = 5.0


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "lazy.sqlite"


@pytest.fixture
def db(path: Path) -> Iterator[Database]:
    database = _open(path)
    database.write(lambda conn: conn.exec_driver_sql("CREATE TABLE t (v INTEGER UNIQUE)"))
    yield database
    database.dispose()


def _open(path: Path) -> Database:
    return Database(DatabaseSettings(f"sqlite:///{path}"))


def _committed(path: Path) -> list[int]:
    """What another process sees: the committed rows only."""
    with sqlite3.connect(path) as other:
        return [v for (v,) in other.execute("SELECT v FROM t ORDER BY v")]


def test_a_lazy_write_returns_its_result_and_the_next_read_sees_it(db: Database) -> None:
    assert db.write(insert_value(1), lazy=True) == 1
    assert stored_values(db) == [1]


def test_lazy_writes_share_one_transaction_committed_before_an_ordinary_write(
    db: Database, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No commit by time (a loaded machine may pass the linger between two lazy writes): the
    # ordinary write alone commits them.
    monkeypatch.setattr(sqlite_writer, "LINGER_SECONDS", 60.0)
    before = db.write_transactions
    assert before is not None
    for value in (1, 2, 3):
        db.write(insert_value(value), lazy=True)
    db.write(insert_value(9))
    assert _committed(path) == [1, 2, 3, 9]
    assert db.write_transactions == before + 2


def test_other_processes_see_lazy_writes_within_moments(db: Database, path: Path) -> None:
    db.write(insert_value(4), lazy=True)
    deadline = time.monotonic() + WAIT
    while _committed(path) != [4] and time.monotonic() < deadline:
        time.sleep(0.001)
    assert _committed(path) == [4]


def test_a_failing_lazy_write_leaves_nothing_and_the_others_stay(db: Database) -> None:
    db.write(insert_value(1), lazy=True)
    with pytest.raises(ValueError, match="write 2 refused"):
        db.write(failing_insert(2), lazy=True)
    db.write(insert_value(3), lazy=True)
    with pytest.raises(exc.IntegrityError, match="UNIQUE"):
        db.write(insert_value(1), lazy=True)
    assert stored_values(db) == [1, 3]


def test_closing_commits_lazy_writes(db: Database, path: Path) -> None:
    db.write(insert_value(5), lazy=True)
    db.dispose()
    assert _committed(path) == [5]


CRASHING_CHILD = """
import os, sys
from sqlalchemy import text
from tests.contract.held_writes import (
    failing_insert,
    insert_value,
    stored_values,
)
from thermik.conf.settings import DatabaseSettings
from thermik.persistence import sqlite_writer
from thermik.persistence import sqlite_writer
from thermik.persistence.database import Database

sqlite_writer.LINGER_SECONDS = 60  # no commit by time: only what the child does commits
db = Database(DatabaseSettings(f"sqlite:///{sys.argv[1]}"))
for step in sys.argv[2:]:
    lazy, value = step[0] == "L", int(step[1:])
    db.write(lambda c: c.execute(text(f"INSERT INTO t (v) VALUES ({value})")), lazy=lazy)
os._exit(0)  # as a kill -9 would: nothing runs after it
"""


def _crash_after(path: Path, *steps: str) -> None:
    child = [sys.executable, "-c", textwrap.dedent(CRASHING_CHILD), str(path), *steps]
    subprocess.run(child, check=True, timeout=60)


@pytest.mark.parametrize(
    ("steps", "kept"),
    [
        (("L2", "L3"), [1]),
        (("L2", "O3"), [1, 2, 3]),
        (("L2", "O3", "L4"), [1, 2, 3]),
    ],
)
def test_a_crash_loses_the_last_lazy_writes_together_never_one_alone(
    db: Database, path: Path, steps: tuple[str, ...], kept: list[int]
) -> None:
    db.write(insert_value(1))
    db.dispose()
    _crash_after(path, *steps)
    assert _committed(path) == kept


def test_lazy_writes_lost_to_a_failed_commit_stop_every_later_write(path: Path) -> None:
    database = _open(path)
    for table in (
        "CREATE TABLE p (id INTEGER PRIMARY KEY)",
        # Checked at COMMIT only: a row referring to a missing one makes the COMMIT fail.
        "CREATE TABLE t (v INTEGER UNIQUE,"
        " p INTEGER REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED)",
    ):
        database.write(lambda conn, table=table: conn.exec_driver_sql(table))
    database.write(insert_value(1))
    database.write(lambda conn: conn.exec_driver_sql("INSERT INTO t VALUES (7, 99)"), lazy=True)
    with pytest.raises(DatabaseUnavailable, match=r"lost 1 acknowledged writes .*FOREIGN KEY"):
        database.write(insert_value(2))
    with pytest.raises(DatabaseUnavailable, match="refused until the engine restarts"):
        database.write(insert_value(3), lazy=True)
    assert stored_values(database) == [1]
    database.dispose()


def test_lazy_writes_commit_once_enough_share_a_transaction(
    db: Database, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_writer, "LINGER_SECONDS", 60.0)  # only the count commits
    for value in range(sqlite_writer.MAX_LAZY - 1):
        db.write(insert_value(value), lazy=True)
    assert _committed(path) == []
    db.write(insert_value(sqlite_writer.MAX_LAZY - 1), lazy=True)
    assert _committed(path) == list(range(sqlite_writer.MAX_LAZY))


def _flusher(db: Database) -> threading.Thread | None:
    # Which thread commits is visible only inside the writer.
    writer = db._writer
    assert writer is not None
    return writer._flusher


def test_the_commit_thread_runs_only_while_lazy_writes_come(
    db: Database, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_writer, "FLUSHER_IDLE_SECONDS", 0.05)
    db.write(insert_value(1), lazy=True)
    thread = _flusher(db)
    assert thread is not None
    thread.join(WAIT)
    assert not thread.is_alive()
    assert _flusher(db) is None
    assert _committed(path) == [1]
    db.write(insert_value(2), lazy=True)
    deadline = time.monotonic() + WAIT
    while _committed(path) != [1, 2] and time.monotonic() < deadline:
        time.sleep(0.001)
    assert _committed(path) == [1, 2]
