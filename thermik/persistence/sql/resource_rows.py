"""Resource version rows and values: how a row is read, what a new row holds, what a change sets.

The store's resource part (:mod:`thermik.persistence.sql.resources`) writes and guards the rows;
this module turns them into :class:`~thermik.persistence.resource_values.Resource` values and
back.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
from typing import Any

from sqlalchemy import Connection, Row, insert, select, type_coerce

from thermik.persistence.resource_values import NewResource, Resource, ResourceChanges
from thermik.persistence.row_ids import row_uuid
from thermik.persistence.sql.base import check_length, reason
from thermik.persistence.sql.hot import HotStatement
from thermik.persistence.sql.tables import RESOURCE
from thermik.persistence.sqltypes import LONG_TEXT
from thermik.persistence.values import changed_fields

_INSERT = HotStatement(insert(RESOURCE))
_INSERT_RETURNING = insert(RESOURCE).returning(RESOURCE.c.id, sort_by_parameter_order=True)
#: The columns of :class:`Resource`'s fields, in their order (a row becomes a value by
#: position: reading thousands of rows by column name costs more than the query).
#: The atomic key of a version as inserted: no write has changed it (or given it blobs) since.
NEW_ROW_KEY = 0
_FIELDS = tuple(field.name for field in dataclasses.fields(Resource))
_COLUMN_OF = {"metadata": "rsrc_metadata"}
_REQUIRES = _FIELDS.index("requires")
_METADATA = _FIELDS.index("metadata")
#: Rows with ``requires`` as stored text: rows listing the same versions then share one tuple,
#: decoded once (a layer of thousands of versions each requiring the hundreds of the layer
#: before would otherwise hold millions of separate integers).
SELECT_RESOURCE = select(
    *(
        type_coerce(column, LONG_TEXT).label(column.name) if column.name == "requires" else column
        for column in (RESOURCE.c[_COLUMN_OF.get(name, name)] for name in _FIELDS)
    )
)


def _version_ids(text: str, shared: dict[str, tuple[int, ...]]) -> tuple[int, ...]:
    found = shared.get(text)
    if found is None:
        found = shared[text] = tuple(json.loads(text))
    return found


def to_resource(row: Row[Any], shared: dict[str, tuple[int, ...]] | None = None) -> Resource:
    """A resource value from a row of :data:`SELECT_RESOURCE` (``shared``: ``requires`` tuples
    already decoded, by stored text)."""
    values = list(row)
    requires = values[_REQUIRES]
    values[_REQUIRES] = (
        _version_ids(requires, {} if shared is None else shared)
        if isinstance(requires, str)
        else tuple(requires)
    )
    values[_METADATA] = values[_METADATA] or {}
    return Resource(*values)


def columns_of(changes: ResourceChanges) -> dict[str, Any]:
    """The columns a change sets, as stored."""
    columns = changed_fields(changes)
    if "requires" in columns:
        columns["requires"] = sorted(columns["requires"])
    if "status_reason" in columns:
        columns["status_reason"] = reason(columns["status_reason"])
    check_length("physical_resource_id", columns.get("physical_resource_id"), 255)
    return columns


def new_row(new: NewResource, now: datetime.datetime) -> dict[str, Any]:
    """The row of a new version (checked as every backend would)."""
    check_length("name", new.name, 255)
    check_length("resource_type", new.resource_type, 255)
    return {
        "uuid": row_uuid(),
        "stack_id": new.stack_id,
        "root_stack_id": new.root_stack_id,
        "name": new.name,
        "resource_type": new.resource_type,
        "physical_resource_id": None,
        "action": new.action,
        "status": new.status,
        "status_reason": reason(new.status_reason),
        "requires": sorted(new.requires),
        "replaces": new.replaces,
        "replaced_by": None,
        "current_template_id": new.current_template_id,
        "engine_id": None,
        "atomic_key": NEW_ROW_KEY,
        "rsrc_metadata": {},
        "metadata_generation": 0,
        "created_at": now,
        "updated_at": None,
    }


def inserted(conn: Connection, row: dict[str, Any]) -> Resource:
    """Insert a :func:`new_row` in ``conn``'s transaction; the version it is."""
    row["id"] = _INSERT.execute(conn, row).inserted_id
    return _value(row)


def inserted_all(conn: Connection, rows: list[dict[str, Any]]) -> list[Resource]:
    """Insert several :func:`new_row` rows in ``conn``'s transaction, in order; the versions
    they are, in one call (a traversal inserts a whole stack's versions at once)."""
    if len(rows) < 2:
        return [inserted(conn, row) for row in rows]
    if conn.dialect.name != "sqlite":
        # MariaDB: SQLAlchemy sends multi-row INSERTs and hands the ids back in the rows' order.
        ids = (
            _INSERT.inserted_ids(conn, rows)
            if conn.dialect.name == "postgresql"
            else conn.execute(_INSERT_RETURNING, rows).scalars().all()
        )
        for row, row_id in zip(rows, ids, strict=True):
            row["id"] = row_id
        return [_value(row) for row in rows]
    last = _INSERT.insert_many(conn, rows)
    # The transaction holds SQLite's only write lock and the ids are not given, so the rows
    # got the ids after the table's largest, one after another; the first row proves it.
    first = last - len(rows) + 1
    found = conn.execute(select(RESOURCE.c.uuid).where(RESOURCE.c.id == first)).scalar()
    if found != rows[0]["uuid"]:
        raise RuntimeError(f"resource rows inserted at once did not get ids {first}..{last}")
    for offset, row in enumerate(rows):
        row["id"] = first + offset
    return [_value(row) for row in rows]


def _value(row: dict[str, Any]) -> Resource:
    return Resource(
        **{k: v for k, v in row.items() if k not in ("rsrc_metadata", "requires")},
        requires=tuple(row["requires"]),
        metadata={},
    )
