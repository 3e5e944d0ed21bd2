"""Alembic owns the schema: every path up to head ends in exactly the models' schema."""

from __future__ import annotations

from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Connection, inspect

from thermik.conf.settings import DatabaseSettings
from thermik.errors import SchemaNotMigrated
from thermik.persistence import migration, models
from thermik.persistence.database import Database
from thermik.persistence.factory import open_store


def schema_diff(db: Database) -> list[Any]:
    def work(conn: Connection) -> list[Any]:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "compare_server_default": True}
        )
        return list(compare_metadata(context, models.Base.metadata))

    return db.read(work)


def table_names(db: Database) -> set[str]:
    return db.read(lambda conn: set(inspect(conn).get_table_names()))


def test_revisions_form_one_line() -> None:
    assert migration.revisions()[0] == "0001_core"
    assert migration.revisions()[-1] == migration.head_revision()


def test_upgrade_from_empty_equals_models(scratch_url: str) -> None:
    db = Database(DatabaseSettings(scratch_url))
    assert migration.current_revision(db) is None
    migration.upgrade(db)
    assert migration.current_revision(db) == migration.head_revision()
    assert schema_diff(db) == []
    migration.check_schema(db)
    db.dispose()


@pytest.mark.parametrize("start", migration.revisions()[:-1])
def test_upgrade_from_each_earlier_revision(scratch_url: str, start: str) -> None:
    db = Database(DatabaseSettings(scratch_url))
    migration.upgrade(db, start)
    assert schema_diff(db) != []  # the comparison sees what is missing
    with pytest.raises(SchemaNotMigrated, match=f"revision {start}, older than"):
        migration.check_schema(db)
    with pytest.raises(SchemaNotMigrated, match="thermik-manage db sync"):
        open_store(DatabaseSettings(scratch_url), None)
    migration.upgrade(db)
    assert schema_diff(db) == []
    db.dispose()


def test_downgrade_to_base_removes_every_table(scratch_url: str) -> None:
    db = Database(DatabaseSettings(scratch_url))
    migration.upgrade(db)
    migration.downgrade(db, "base")
    assert table_names(db) <= {"alembic_version"}
    with pytest.raises(SchemaNotMigrated, match="has no Thermik schema"):
        migration.check_schema(db)
    migration.upgrade(db)
    assert schema_diff(db) == []
    db.dispose()
