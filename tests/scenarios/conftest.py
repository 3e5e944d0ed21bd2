"""Fixtures of the runtime scenarios: a migrated SQLite file per test and a runtime on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.scenarios.runtime_harness import Harness, harness_on, migrated_sqlite


@pytest.fixture(scope="session")
def migrated_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated SQLite database, made once and copied for each test."""
    directory = tmp_path_factory.mktemp("migrated")
    migrated_sqlite(directory)
    return directory / "thermik.sqlite"


@pytest.fixture
def sqlite_url(tmp_path: Path, migrated_file: Path) -> str:
    """A fresh migrated SQLite database for this test."""
    return migrated_sqlite(tmp_path, migrated_file)


@pytest.fixture
def harness(sqlite_url: str) -> Iterator[Harness]:
    """The runtime on a fresh SQLite database; every actor is stopped afterwards."""
    with harness_on(sqlite_url) as started:
        yield started
