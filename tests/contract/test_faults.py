"""Faults and bad configuration: one clear error each, and nothing half-written."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Connection, text

from tests import dbservers
from tests.contract.conftest import KEY, require_backend
from tests.contract.test_store import TEMPLATE, make_stack
from thermik.conf.settings import DatabaseSettings
from thermik.errors import (
    ConfigError,
    DatabaseUnavailable,
    SchemaNotMigrated,
    SecretKeyError,
)
from thermik.persistence import migration
from thermik.persistence.crypto import SecretBox
from thermik.persistence.database import Database
from thermik.persistence.factory import open_store
from thermik.persistence.resource_values import NewEvent
from thermik.persistence.sql.store import SqlStore
from thermik.persistence.values import NewStack, StackQuery

SERVERS = ("postgresql", "mysql")


def migrated_sqlite(path: Path, busy_timeout: int = 30) -> DatabaseSettings:
    settings = DatabaseSettings(f"sqlite:///{path}", busy_timeout=busy_timeout)
    db = Database(settings)
    migration.upgrade(db)
    db.dispose()
    return settings


@pytest.mark.parametrize(
    ("connection", "message"),
    [
        ("not a url", "not a database URL"),
        ("sqlite://", "in-memory SQLite"),
        ("sqlite:///:memory:", "in-memory SQLite"),
        ("oracle://scott@db/x", "unsupported database 'oracle'"),
    ],
)
def test_unusable_connection_urls(connection: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        open_store(DatabaseSettings(connection), None)


@pytest.mark.parametrize("backend", SERVERS)
def test_unreachable_server(backend: str) -> None:
    url = dbservers.admin_url(backend).set(port=1, password="hidden-pw")
    with pytest.raises(DatabaseUnavailable, match=r"127\.0\.0\.1:1") as caught:
        open_store(DatabaseSettings(url.render_as_string(hide_password=False)), None)
    assert "hidden-pw" not in str(caught.value)


@pytest.mark.parametrize(
    ("backend", "change"),
    [
        ("postgresql", {"username": "no_such_role"}),
        ("mysql", {"password": "wrong-password"}),
        ("postgresql", {"database": "no_such_database"}),
        ("mysql", {"database": "no_such_database"}),
    ],
)
def test_refused_credentials_or_database(backend: str, change: dict[str, str]) -> None:
    require_backend(backend)
    url = dbservers.admin_url(backend).set(**change)  # type: ignore[arg-type]
    with pytest.raises(DatabaseUnavailable, match="is unavailable"):
        open_store(DatabaseSettings(url.render_as_string(hide_password=False)), None)


def test_not_migrated_database(scratch_url: str) -> None:
    with pytest.raises(
        SchemaNotMigrated, match="has no Thermik schema; run 'thermik-manage db sync'"
    ):
        open_store(DatabaseSettings(scratch_url), None)


def test_schema_lost_while_running(scratch_url: str) -> None:
    db = Database(DatabaseSettings(scratch_url))
    migration.upgrade(db)
    store = SqlStore(db, SecretBox(KEY))
    stack = make_stack(store)
    db.write(lambda conn: conn.execute(text("DROP TABLE event")))
    with pytest.raises(SchemaNotMigrated, match="thermik-manage db sync"):
        store.append_event(NewEvent(stack.id, "web", "CREATE", "COMPLETE"))
    db.dispose()


def test_locked_sqlite_file_fails_clearly_and_writes_nothing(tmp_path: Path) -> None:
    settings = migrated_sqlite(tmp_path / "t.sqlite", busy_timeout=0)
    store = open_store(settings, None)
    template_id = store.store_raw_template(TEMPLATE, {}, {})
    holder = sqlite3.connect(tmp_path / "t.sqlite", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(DatabaseUnavailable, match="database is locked"):
            store.create_stack(NewStack("web", "t1", template_id, tags=("a",)))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert store.count_stacks(StackQuery(tenant=None)) == 0
    store.create_stack(NewStack("web", "t1", template_id, tags=("a",)))
    store.close()


def test_file_that_is_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "garbage.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(DatabaseUnavailable, match="file is not a database"):
        open_store(DatabaseSettings(f"sqlite:///{path}"), None)


def test_database_directory_cannot_be_created(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(DatabaseUnavailable, match="cannot create its directory"):
        open_store(DatabaseSettings(f"sqlite:///{blocker}/sub/t.sqlite"), None)


def test_malformed_encryption_key(tmp_path: Path) -> None:
    settings = migrated_sqlite(tmp_path / "t.sqlite")
    with pytest.raises(SecretKeyError, match="not a Fernet key"):
        open_store(settings, "too-short")


def test_missing_key_refuses_to_store_secrets_and_writes_nothing(tmp_path: Path) -> None:
    store = open_store(migrated_sqlite(tmp_path / "t.sqlite"), None)
    env = {"parameters": {"password": "pw"}}
    with pytest.raises(SecretKeyError, match=r"parameters\.password: cannot encrypt a secret"):
        store.store_raw_template(TEMPLATE, env, {}, hidden_parameters=["password"])
    plain = store.store_raw_template(TEMPLATE, env, {})
    assert plain == 1  # the failed attempt left no row behind
    store.close()


def test_wrong_key_cannot_read_secrets(tmp_path: Path) -> None:
    settings = migrated_sqlite(tmp_path / "t.sqlite")
    writer = open_store(settings, KEY)
    template_id = writer.store_raw_template(
        TEMPLATE, {"parameters": {"password": "pw"}}, {}, hidden_parameters=["password"]
    )
    writer.close()
    reader = open_store(settings, SecretBox.generate_key())
    with pytest.raises(
        SecretKeyError, match=r"parameters\.password: cannot decrypt .* not the key"
    ):
        reader.get_raw_template(template_id)
    reader.close()
    keyless = open_store(settings, None)
    with pytest.raises(SecretKeyError, match="auth_encryption_key is not configured"):
        keyless.get_raw_template(template_id)
    keyless.close()


@pytest.fixture(params=SERVERS)
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str, Database]]:
    """(backend, url, database) of a migrated scratch database on a server backend."""
    backend: str = request.param
    require_backend(backend)
    with dbservers.scratch_database(backend, tmp_path) as url:
        db = Database(DatabaseSettings(url))
        migration.upgrade(db)
        yield backend, url, db
        db.dispose()


def test_store_survives_dropped_connections(server: tuple[str, str, Database]) -> None:
    backend, url, db = server
    store = SqlStore(db, SecretBox(KEY))
    make_stack(store, name="before")
    dbservers.drop_connections(backend, url)
    make_stack(store, name="after")


def test_deadlock_is_retried_not_raised(server: tuple[str, str, Database]) -> None:
    _, _, db = server
    SqlStore(db, SecretBox(KEY)).register_engine("a", "h", "b", "t", 1)
    SqlStore(db, SecretBox(KEY)).register_engine("b", "h", "b", "t", 1)
    barrier = threading.Barrier(2, timeout=10)
    attempts: list[str] = []
    errors: list[BaseException] = []

    def crossing(first: str, second: str) -> None:
        def work(conn: Connection) -> None:
            attempts.append(first)
            bump = text(
                "UPDATE engine_service SET report_interval = report_interval + 1 WHERE id = :id"
            )
            conn.execute(bump, {"id": first})
            if len(attempts) <= 2:
                barrier.wait()
            conn.execute(bump, {"id": second})

        try:
            db.write(work)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=crossing, args=pair) for pair in (("a", "b"), ("b", "a"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    # A victim was chosen and re-run; on a busy machine its retry can race the survivor for the
    # first row and deadlock once more, so more runs are fine as long as each committed once.
    assert len(attempts) >= 3
    intervals = db.read(
        lambda c: c.execute(text("SELECT report_interval FROM engine_service")).scalars().all()
    )
    assert sorted(intervals) == [3, 3]
