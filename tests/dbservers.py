"""Scratch databases on the test backends: SQLite files, and fresh PostgreSQL/MariaDB databases.

Server URLs come from ``THERMIK_TEST_POSTGRESQL_URL`` / ``THERMIK_TEST_MYSQL_URL`` (defaults:
the machine's local servers). Each scratch database gets a random name and is dropped after use.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import sqlalchemy
from sqlalchemy.engine import URL, make_url

BACKENDS = ("sqlite", "postgresql", "mysql")
SERVER_URLS = {
    "postgresql": os.environ.get(
        "THERMIK_TEST_POSTGRESQL_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
    ),
    "mysql": os.environ.get("THERMIK_TEST_MYSQL_URL", "mysql+pymysql://root@127.0.0.1:3306/test"),
}


def services_required() -> bool:
    """Whether a missing database server must fail the run (CI) instead of skipping."""
    return os.environ.get("THERMIK_REQUIRE_SERVICES") == "1"


def admin_url(backend: str, server_url: str | None = None) -> URL:
    """The URL of the server's maintenance database for ``backend`` (``server_url`` if given)."""
    return make_url(server_url or SERVER_URLS[backend])


def unavailable(backend: str, server_url: str | None = None) -> str | None:
    """Why ``backend`` (the server of ``server_url`` if given) cannot be used here, or
    ``None`` if it can."""
    if backend == "sqlite":
        return None
    server = admin_url(backend, server_url)
    engine = sqlalchemy.create_engine(server, poolclass=sqlalchemy.NullPool)
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
    except sqlalchemy.exc.DBAPIError as error:
        where = server.render_as_string(hide_password=True)
        return f"{backend} at {where} is not reachable: {str(error.orig).strip()}"
    finally:
        engine.dispose()
    return None


@contextlib.contextmanager
def scratch_database(
    backend: str, directory: Path, server_url: str | None = None
) -> Iterator[str]:
    """A new empty database on ``backend`` (the server of ``server_url`` if given, else the
    test server); yields its URL and drops it afterwards."""
    name = f"thermik_test_{uuid.uuid4().hex[:12]}"
    if backend == "sqlite":
        yield f"sqlite:///{directory / (name + '.sqlite')}"
        return
    server = admin_url(backend, server_url)
    admin = sqlalchemy.create_engine(
        server, isolation_level="AUTOCOMMIT", poolclass=sqlalchemy.NullPool
    )
    charset = " CHARACTER SET utf8mb4" if backend == "mysql" else ""
    with admin.connect() as conn:
        conn.exec_driver_sql(f"CREATE DATABASE {name}{charset}")
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        force = " WITH (FORCE)" if backend == "postgresql" else ""
        with admin.connect() as conn:
            conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {name}{force}")
        admin.dispose()


#: The statement that lists (MariaDB) or ends (PostgreSQL) the other connections to a database.
_OTHER_CONNECTIONS = {
    "postgresql": "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
    "WHERE datname = :db AND pid <> pg_backend_pid()",
    "mysql": "SELECT id FROM information_schema.processlist WHERE db = :db",
}


def drop_connections(backend: str, url: str) -> None:
    """End every connection to the database of ``url``, as a server restart would."""
    engine = sqlalchemy.create_engine(admin_url(backend))
    try:
        with engine.begin() as conn:
            found = conn.execute(
                sqlalchemy.text(_OTHER_CONNECTIONS[backend]), {"db": make_url(url).database}
            ).all()
            if backend == "mysql":
                for row in found:
                    conn.exec_driver_sql(f"KILL {int(row[0])}")
    finally:
        engine.dispose()
