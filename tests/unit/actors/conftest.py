"""A real SQLite store for the actor layer's unit tests (no mocks: the store is the boundary)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.scenarios.conftest import migrated_file, sqlite_url
from tests.scenarios.runtime_harness import HOT
from thermik.conf.settings import DatabaseSettings
from thermik.persistence.factory import open_store
from thermik.persistence.store import Store
from thermik.persistence.values import NewStack, Stack

__all__ = ["migrated_file", "sqlite_url"]


@pytest.fixture
def store(sqlite_url: str) -> Iterator[Store]:
    """A store on a fresh migrated SQLite file."""
    opened = open_store(DatabaseSettings(sqlite_url), None)
    yield opened
    opened.close()


@pytest.fixture
def stack(store: Store) -> Stack:
    """A stored stack with an empty template."""
    template_id = store.store_raw_template({"heat_template_version": HOT}, {}, {})
    return store.create_stack(NewStack("s", "tenant", template_id))
