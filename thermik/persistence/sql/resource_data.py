"""A resource's private key/value data, stored properties and cached attribute values."""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Column, Connection, bindparam, delete, insert, select, update
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects import mysql, postgresql, sqlite

from thermik.errors import PathElement, ResourceNotFound
from thermik.persistence import crypto, dberrors
from thermik.persistence.sql.base import COMPACT, SqlBase, check_length, new_id
from thermik.persistence.sql.hot import HotStatement
from thermik.persistence.sql.tables import PROPERTIES_DATA, RESOURCE, RESOURCE_DATA
from thermik.persistence.store import ResourceDataStore
from thermik.persistence.values import JSON

#: What a write of a key sets, and what names the key (the upserts' conflict target).
DATA_COLUMNS = ("value", "redact", "decrypt_method")
_SQLITE_UPSERT = sqlite.insert(RESOURCE_DATA)
_PG_UPSERT = postgresql.insert(RESOURCE_DATA)
_MYSQL_UPSERT = mysql.insert(RESOURCE_DATA)
KEY_COLUMNS = [RESOURCE_DATA.c.resource_id, RESOURCE_DATA.c.key]
_MYSQL_DATA = HotStatement(
    _MYSQL_UPSERT.on_duplicate_key_update(
        {name: _MYSQL_UPSERT.inserted[name] for name in DATA_COLUMNS}
    )
)
#: Dialect -> the statement writing a key whether or not it exists: one statement (and no
#: savepoint) where an UPDATE, then an INSERT in a savepoint, took four round trips. The
#: databases settle two writers of one key themselves (the last writer wins).
_UPSERT_DATA = {
    "sqlite": HotStatement(
        _SQLITE_UPSERT.on_conflict_do_update(
            index_elements=KEY_COLUMNS,
            set_={name: _SQLITE_UPSERT.excluded[name] for name in DATA_COLUMNS},
        )
    ),
    "postgresql": HotStatement(
        _PG_UPSERT.on_conflict_do_update(
            index_elements=KEY_COLUMNS,
            set_={name: _PG_UPSERT.excluded[name] for name in DATA_COLUMNS},
        )
    ),
    "mysql": _MYSQL_DATA,
    "mariadb": _MYSQL_DATA,
}


_DELETE_DATA = HotStatement(
    delete(RESOURCE_DATA).where(
        RESOURCE_DATA.c.resource_id == bindparam("b_resource"),
        RESOURCE_DATA.c.key == bindparam("b_key"),
    )
)


#: A stack's stored properties, read once per traversal.
_PROPERTIES_OF = (
    select(RESOURCE.c.id, PROPERTIES_DATA.c.data, PROPERTIES_DATA.c.encrypted)
    .join(PROPERTIES_DATA, PROPERTIES_DATA.c.id == RESOURCE.c.properties_data_id)
    .where(RESOURCE.c.stack_id == bindparam("b_stack"))
)


def _missing(resource_id: int) -> ResourceNotFound:
    return ResourceNotFound(f"resource {resource_id} not found")


def data_row(
    secrets: crypto.SecretBox, resource_id: int, key: str, value: str | None, redact: bool
) -> dict[str, Any]:
    """The parameters of :func:`write_data` for one key (``value`` ``None``: delete it)."""
    check_length("key", key, 255)
    if value is None:
        return {"b_resource": resource_id, "b_key": key}
    # Plugin data may hold values derived from the properties: sealed like them when a key is
    # configured; a redacted key needs one.
    sealed = redact or secrets.sealing
    return {
        "resource_id": resource_id,
        "key": key,
        "value": secrets.encrypt(value, "resource_data", key) if sealed else value,
        "redact": redact,
        "decrypt_method": crypto.METHOD if sealed else None,
    }


def blob_row(
    secrets: crypto.SecretBox, data: Mapping[str, JSON], now: datetime.datetime
) -> dict[str, Any]:
    """The row of a properties or attributes blob holding ``data`` (sealed when ``secrets``
    seal: such values may derive from hidden parameters and secrets)."""
    if secrets.sealing:
        return {"data": secrets.seal(data), "encrypted": True, "created_at": now}
    return {"data": COMPACT(data), "encrypted": False, "created_at": now}


def write_data(conn: Connection, row: Mapping[str, Any]) -> None:
    """Set (or delete) one key of a resource's data in the running transaction; the last
    writer wins."""
    if "value" not in row:
        _DELETE_DATA.execute(conn, row)
        return
    _UPSERT_DATA[conn.dialect.name].execute(conn, row)


class SqlResourceData(SqlBase, ResourceDataStore):
    """Resource data and property blobs in SQL."""

    def set_resource_data(
        self, resource_id: int, key: str, value: str, *, redact: bool = False
    ) -> None:
        row = data_row(self._secrets, resource_id, key, value, redact)
        try:
            self._db.write(lambda conn: write_data(conn, row))
        except sa_exc.IntegrityError as error:
            if dberrors.is_foreign_key_violation(error):
                raise _missing(resource_id) from None
            raise

    def get_resource_data(self, resource_id: int) -> dict[str, str]:
        stmt = select(RESOURCE_DATA).where(RESOURCE_DATA.c.resource_id == resource_id)
        rows = self._db.read(lambda conn: conn.execute(stmt).all())
        return {
            row.key: (
                self._secrets.decrypt(row.value, row.decrypt_method, "resource_data", row.key)
                if row.redact or row.decrypt_method is not None
                else row.value
            )
            for row in rows
        }

    def redacted_resource_data_keys(self, resource_id: int) -> frozenset[str]:
        stmt = select(RESOURCE_DATA.c.key).where(
            RESOURCE_DATA.c.resource_id == resource_id, RESOURCE_DATA.c.redact.is_(True)
        )
        return frozenset(self._db.read(lambda conn: conn.execute(stmt).scalars().all()))

    def delete_resource_data(self, resource_id: int, key: str) -> None:
        stmt = delete(RESOURCE_DATA).where(
            RESOURCE_DATA.c.resource_id == resource_id, RESOURCE_DATA.c.key == key
        )
        self._db.write(lambda conn: conn.execute(stmt))

    def require_encryption(self, *path: PathElement) -> None:
        self._secrets.require(*path)

    def store_resource_properties(
        self, resource_id: int, properties: Mapping[str, JSON], *, encrypt: bool = False
    ) -> None:
        self._store_blob(resource_id, RESOURCE.c.properties_data_id, properties, encrypt)

    def get_resource_properties(self, resource_id: int) -> Mapping[str, JSON] | None:
        return self._load_blob(resource_id, RESOURCE.c.properties_data_id)

    def list_resource_properties(self, stack_id: str) -> dict[int, Mapping[str, JSON]]:
        params = {"b_stack": stack_id}
        rows = self._db.read(lambda conn: conn.execute(_PROPERTIES_OF, params).all())
        return {row.id: self._blob(row.id, row.data, row.encrypted) for row in rows}

    def store_resource_attributes(
        self, resource_id: int, attributes: Mapping[str, JSON] | None
    ) -> None:
        self._store_blob(resource_id, RESOURCE.c.attr_data_id, attributes, False)

    def get_resource_attributes(self, resource_id: int) -> Mapping[str, JSON] | None:
        return self._load_blob(resource_id, RESOURCE.c.attr_data_id)

    def _store_blob(
        self,
        resource_id: int,
        column: Column[Any],
        data: Mapping[str, JSON] | None,
        encrypt: bool,
    ) -> None:
        if encrypt:
            self._secrets.require("resources", resource_id, "properties")
        now = self._clock()
        row = None if data is None else blob_row(self._secrets, data, now)

        def work(conn: Connection) -> None:
            old = conn.execute(select(column).where(RESOURCE.c.id == resource_id)).one_or_none()
            if old is None:
                raise _missing(resource_id)
            blob_id = None
            if row is not None:
                blob_id = new_id(conn.execute(insert(PROPERTIES_DATA).values(**row)))
            # The key moves on, as with every write that changes a row's blobs: a guarded
            # write at a version's first key counts on the row having none.
            conn.execute(
                update(RESOURCE)
                .where(RESOURCE.c.id == resource_id)
                .values({column: blob_id, RESOURCE.c.atomic_key: RESOURCE.c.atomic_key + 1})
            )
            if old[0] is not None:
                conn.execute(delete(PROPERTIES_DATA).where(PROPERTIES_DATA.c.id == old[0]))

        self._db.write(work)

    def _load_blob(self, resource_id: int, column: Column[Any]) -> Mapping[str, JSON] | None:
        stmt = (
            select(RESOURCE.c.id, PROPERTIES_DATA.c.data, PROPERTIES_DATA.c.encrypted)
            .outerjoin(PROPERTIES_DATA, PROPERTIES_DATA.c.id == column)
            .where(RESOURCE.c.id == resource_id)
        )
        row = self._db.read(lambda conn: conn.execute(stmt).one_or_none())
        if row is None:
            raise _missing(resource_id)
        if row.data is None:
            return None
        return self._blob(resource_id, row.data, row.encrypted)

    def _blob(self, resource_id: int, text: str, encrypted: bool) -> Mapping[str, JSON]:
        if encrypted:
            text = self._secrets.decrypt(
                text, crypto.METHOD, "resources", resource_id, "properties"
            )
        result: Mapping[str, JSON] = json.loads(text)
        return result
