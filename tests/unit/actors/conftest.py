"""A real SQLite store for the actor layer's unit tests (no mocks: the store is the boundary)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.scenarios.runtime_harness import HOT, migrated_sqlite
from thermik.conf.settings import DatabaseSettings
from thermik.persistence.factory import open_store
from thermik.persistence.store import Store
from thermik.persistence.values import NewStack, Stack


@pytest.fixture(scope="session")
def migrated_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("actors-db")
    migrated_sqlite(directory)
    return directory / "thermik.sqlite"


@pytest.fixture
def store(tmp_path: Path, migrated_db: Path) -> Iterator[Store]:
    opened = open_store(DatabaseSettings(migrated_sqlite(tmp_path, migrated_db)), None)
    yield opened
    opened.close()


@pytest.fixture
def stack(store: Store) -> Stack:
    template_id = store.store_raw_template({"heat_template_version": HOT}, {}, {})
    return store.create_stack(NewStack("s", "tenant", template_id))
