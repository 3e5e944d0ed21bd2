"""Alembic, driven from code: upgrade, inspect and check the schema of a :class:`Database`.

The migration scripts are package data (``migrations/``) so an installed Thermik can migrate
its database without a source tree or an ``alembic.ini``.
"""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection

from thermik.errors import SchemaNotMigrated
from thermik.persistence.database import Database

SCRIPT_LOCATION = "thermik.persistence:migrations"


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic configuration for Thermik's scripts, bound to ``connection`` if given."""
    config = Config()
    config.set_main_option("script_location", SCRIPT_LOCATION)
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest revision the code knows."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def revisions() -> list[str]:
    """Every revision, oldest first."""
    script = ScriptDirectory.from_config(alembic_config())
    return [rev.revision for rev in reversed(list(script.walk_revisions()))]


def current_revision(db: Database) -> str | None:
    """The revision the database is at, or ``None`` if it was never migrated."""
    return db.read(lambda conn: MigrationContext.configure(conn).get_current_revision())


def upgrade(db: Database, revision: str = "head") -> None:
    """Migrate the database up to ``revision`` in one transaction where the backend allows."""
    db.write(lambda conn: command.upgrade(alembic_config(conn), revision))


def downgrade(db: Database, revision: str) -> None:
    """Migrate the database down to ``revision`` (``base`` removes every table)."""
    db.write(lambda conn: command.downgrade(alembic_config(conn), revision))


def check_schema(db: Database) -> None:
    """Raise ``SchemaNotMigrated`` unless the database is at the code's head revision."""
    current, head = current_revision(db), head_revision()
    if current == head:
        return
    if current is None:
        state = "has no Thermik schema"
    elif current in revisions():
        state = f"is at schema revision {current}, older than {head}"
    else:
        state = f"is at schema revision {current}, which this Thermik does not know (newer?)"
    raise SchemaNotMigrated(f"database {db.where} {state}; run 'thermik-manage db sync'")
