"""Fixtures of the Store contract: one migrated database per backend, a clean store per test."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Connection, delete

from tests import dbservers
from thermik.conf.settings import DatabaseSettings
from thermik.persistence import migration, models
from thermik.persistence.crypto import SecretBox
from thermik.persistence.database import Database
from thermik.persistence.sql.store import SqlStore

KEY = SecretBox.generate_key()
START = datetime.datetime(2026, 1, 1, 12, 0, tzinfo=datetime.UTC)


class FakeClock:
    """A clock the test moves by hand, so expiry is tested without sleeping."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime.datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += datetime.timedelta(seconds=seconds)


def require_backend(backend: str) -> None:
    """Skip (or, with THERMIK_REQUIRE_SERVICES=1, fail) when ``backend`` is not reachable."""
    reason = dbservers.unavailable(backend)
    if reason is None:
        return
    if dbservers.services_required():
        pytest.fail(f"THERMIK_REQUIRE_SERVICES=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session", params=dbservers.BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """Each backend in turn."""
    name: str = request.param
    require_backend(name)
    return name


@pytest.fixture(scope="session")
def migrated_url(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A database of ``backend`` migrated to head, for the whole session."""
    with dbservers.scratch_database(backend, tmp_path_factory.mktemp(backend)) as url:
        db = Database(DatabaseSettings(url))
        migration.upgrade(db)
        db.dispose()
        yield url


@pytest.fixture(scope="session")
def database(migrated_url: str) -> Iterator[Database]:
    """The session's connection to the migrated database."""
    db = Database(DatabaseSettings(migrated_url, busy_timeout=5))
    yield db
    db.dispose()


@pytest.fixture
def clock() -> FakeClock:
    """A fresh fake clock."""
    return FakeClock()


@pytest.fixture
def store(database: Database, clock: FakeClock) -> Iterator[SqlStore]:
    """A store over an empty migrated database."""
    yield SqlStore(database, SecretBox(KEY), clock)

    def wipe(conn: Connection) -> None:
        for table in reversed(models.Base.metadata.sorted_tables):
            conn.execute(delete(table))

    database.write(wipe)


@pytest.fixture
def scratch_url(backend: str, tmp_path: Path) -> Iterator[str]:
    """An empty, unmigrated database of ``backend`` for this test alone."""
    with dbservers.scratch_database(backend, tmp_path) as url:
        yield url
