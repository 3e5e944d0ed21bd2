"""Building the Store from settings: the only entry point the composition root needs."""

from __future__ import annotations

from thermik.conf.settings import DatabaseSettings
from thermik.persistence import migration
from thermik.persistence.crypto import SecretBox
from thermik.persistence.database import Database
from thermik.persistence.sql.base import Clock, utc_now
from thermik.persistence.sql.store import SqlStore
from thermik.persistence.store import Store


def open_store(
    settings: DatabaseSettings,
    encryption_key: str | None,
    *,
    clock: Clock = utc_now,
    check_schema: bool = True,
) -> Store:
    """Connect, verify the schema is current, and return the Store.

    Raises ``DatabaseUnavailable`` if the database cannot be reached, ``SchemaNotMigrated`` if
    it needs ``thermik-manage db sync``, ``SecretKeyError`` for a malformed key, and
    ``ConfigError`` for an unusable connection URL.
    """
    secrets = SecretBox(encryption_key)
    db = Database(settings)
    try:
        if check_schema:
            migration.check_schema(db)
    except BaseException:
        db.dispose()
        raise
    return SqlStore(db, secrets, clock)
