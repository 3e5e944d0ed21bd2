"""MariaDB: a guarded write and everything it carries, sent as one compound statement.

A resource action's record is a guarded UPDATE of its row, the blobs the row points to, the
action's events, its resource data and the node's join arrival: up to six statements, each a
round trip, and on MariaDB each cost the engine more CPU than on PostgreSQL (PyMySQL is pure
Python: an answer's packets are parsed in Python). MariaDB has no data-modifying ``WITH``, but
it runs a compound statement (``BEGIN NOT ATOMIC ... END``) sent by a client: the record is
one such statement, one round trip, whose blob INSERTs hand their ids to the UPDATE through
local variables, and which writes the rest only if the UPDATE matched its row. Its one result
row says whether it did.

The statement is not atomic by itself (hence its name): it runs in the caller's transaction,
and a guard that failed still leaves the blobs it inserted first, which the caller's raise
rolls back, as it did the separate statements. MySQL has no compound statements outside stored
programs: it keeps the separate statements.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import (
    Connection,
    Dialect,
    bindparam,
    delete,
    insert,
    literal_column,
    select,
    update,
)
from sqlalchemy.dialects import mysql

from thermik.persistence.sql.events import ROW_ARRIVAL
from thermik.persistence.sql.hot import HotStatement, Outcome, TextPlan, run_plan
from thermik.persistence.sql.one_statement import (
    BLOB_PREFIX,
    WHERE_PARAMS,
    Record,
    guarded_update,
    prefixed_bind,
)
from thermik.persistence.sql.resource_data import DATA_COLUMNS
from thermik.persistence.sql.tables import EVENT, PROPERTIES_DATA, RESOURCE, RESOURCE_DATA

#: Whether the UPDATE matched its row (a local variable of the statement).
_MATCHED = "thermik_matched"


def supported(dialect: Dialect) -> bool:
    """Whether ``dialect``'s server runs compound statements sent by a client (MariaDB)."""
    return dialect.name == "mysql" and bool(getattr(dialect, "is_mariadb", False))


class Compound:
    """The compound form of a guarded UPDATE (``base``), built once per shape and server."""

    def __init__(self, base: HotStatement) -> None:
        self._base = guarded_update(base)
        self._built: dict[tuple[Any, ...], Any] = {}

    def execute(
        self, conn: Connection, params: Mapping[str, Any], record: Record, *, fresh: bool
    ) -> Outcome:
        """Write ``record`` with the UPDATE's ``params`` in ``conn``'s transaction; ``fresh``:
        the row is still its first version, with no blobs yet. The UPDATE's outcome."""
        dialect = conn.dialect
        shape = (dialect.server_version_info, fresh, *record.shape(params))
        plan = self._built.get(shape)
        if plan is None:
            plan = self._built[shape] = self.plan(dialect, params, record, fresh=fresh)
        cursor = run_plan(conn, plan, record.parameters(params))
        (matched,) = cursor.fetchone()
        # The compound statement's own end comes as a second result.
        while cursor.nextset():
            pass
        return Outcome(int(matched), None)

    def plan(
        self, dialect: Dialect, params: Mapping[str, Any], record: Record, *, fresh: bool
    ) -> Any:
        """The plan of the statement for ``dialect`` (see :meth:`execute`)."""
        text = TextPlan(dialect)
        lines = ["BEGIN NOT ATOMIC", f"DECLARE {_MATCHED} INT DEFAULT 0;"]
        sets: dict[str, Any] = {
            key: prefixed_bind("s", RESOURCE.c[key]) for key in params if key not in WHERE_PARAMS
        }
        for column, row in record.blobs.items():
            name = f"thermik_{BLOB_PREFIX[column]}"
            lines.insert(1, f"DECLARE {name} BIGINT DEFAULT NULL;")
            lines += _blob_lines(text, name, BLOB_PREFIX[column], tuple(row), column, fresh)
            sets[column] = literal_column(name)
        lines += [f"{text.part(self._base.values(sets))};", f"SET {_MATCHED} = ROW_COUNT();"]
        after = [text.part(part) for part in _after(record)]
        if after:
            lines += [f"IF {_MATCHED} = 1 THEN", *(f"{sql};" for sql in after), "END IF;"]
        lines += [f"SELECT {_MATCHED};", "END"]
        return text.plan("\n".join(lines))


def _blob_lines(
    text: TextPlan, name: str, prefix: str, keys: Sequence[str], column: str, fresh: bool
) -> list[str]:
    """Set ``name`` to the id of the row's blob for ``column``, written with the parameters
    of ``prefix``: a new one, or the one it has, rewritten in place."""
    values = {key: prefixed_bind(prefix, PROPERTIES_DATA.c[key]) for key in keys}
    inserted = text.part(insert(PROPERTIES_DATA).values(values))
    new = f"{inserted}; SET {name} = LAST_INSERT_ID();"
    if fresh:
        return [new]
    owner = select(RESOURCE.c[column]).where(RESOURCE.c.id == bindparam("b_id"))
    rewrite = update(PROPERTIES_DATA).where(PROPERTIES_DATA.c.id == literal_column(name))
    return [
        f"SET {name} = ({text.part(owner)});",
        f"IF {name} IS NULL THEN {new}",
        f"ELSE {text.part(rewrite.values(values))}; END IF;",
    ]


def _after(record: Record) -> list[Any]:
    """The statements that follow a matched UPDATE: events, resource data, join arrival."""
    parts: list[Any] = []
    if record.events:
        rows = [
            {key: prefixed_bind(f"e{index}", EVENT.c[key]) for key in row}
            for index, row in enumerate(record.events)
        ]
        parts.append(insert(EVENT).values(rows))
    for index, row in enumerate(record.data):
        parts.append(_data_write(f"d{index}", "value" in row))
    if record.arrival is not None:
        parts.append(ROW_ARRIVAL)
    return parts


def _data_write(prefix: str, upsert: bool) -> Any:
    if not upsert:
        return delete(RESOURCE_DATA).where(
            RESOURCE_DATA.c.resource_id == bindparam(f"{prefix}_b_resource"),
            RESOURCE_DATA.c.key == bindparam(f"{prefix}_b_key"),
        )
    columns = ("resource_id", "key", *DATA_COLUMNS)
    written = mysql.insert(RESOURCE_DATA).values(
        {key: prefixed_bind(prefix, RESOURCE_DATA.c[key]) for key in columns}
    )
    return written.on_duplicate_key_update({key: written.inserted[key] for key in DATA_COLUMNS})
