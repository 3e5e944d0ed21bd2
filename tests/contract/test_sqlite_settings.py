"""How the embedded SQLite database's connections are set up: every reader and the writer."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Connection

from thermik.conf.settings import DatabaseSettings
from thermik.persistence.database import WAL_CHECKPOINT_PAGES, Database

PRAGMAS = ("journal_mode", "synchronous", "foreign_keys", "wal_autocheckpoint")


def _pragmas(conn: Connection) -> dict[str, object]:
    return {name: conn.exec_driver_sql(f"PRAGMA {name}").scalar() for name in PRAGMAS}


def test_connections_use_the_wal_without_a_sync_per_commit_and_checkpoint_rarely(
    tmp_path: Path,
) -> None:
    db = Database(DatabaseSettings(f"sqlite:///{tmp_path / 's.sqlite'}"))
    try:
        # NORMAL is 1; the WAL is checkpointed every WAL_CHECKPOINT_PAGES pages, not 1,000.
        expected = {
            "journal_mode": "wal",
            "synchronous": 1,
            "foreign_keys": 1,
            "wal_autocheckpoint": WAL_CHECKPOINT_PAGES,
        }
        assert db.read(_pragmas) == expected
        assert db.write(_pragmas) == expected
    finally:
        db.dispose()
