"""The engine's hot statements, run on SQLite's driver cursor.

A resource action writes a handful of short statements. On SQLite, SQLAlchemy's execution
machinery costs more than SQLite itself for each of them (``bench/store_bench.py``), so these
statements are compiled by SQLAlchemy once per set of parameter names (same SQL, same type
processing) and executed directly on the DBAPI cursor, inside the connection's transaction.
On PostgreSQL and MariaDB the network round trip dwarfs that overhead and the normal path runs.
SQL echo does not show these statements on SQLite.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Callable, Mapping
from typing import Any

from sqlalchemy import Connection, Dialect, exc
from sqlalchemy.sql.dml import Delete, Insert, Update

Processor = Callable[[Any], Any] | None


@dataclasses.dataclass(frozen=True, slots=True)
class Outcome:
    """What the engine's hot path needs to know about an executed statement."""

    rowcount: int
    inserted_id: int | None


@dataclasses.dataclass(frozen=True, slots=True)
class _Plan:
    sql: str
    names: tuple[str, ...]
    processors: tuple[Processor, ...]


class HotStatement:
    """An INSERT, UPDATE or DELETE whose columns come from each call's parameters."""

    def __init__(self, statement: Insert | Update | Delete) -> None:
        self._statement = statement
        self._inserts = isinstance(statement, Insert)
        self._plans: dict[tuple[str, ...], _Plan] = {}

    def execute(self, conn: Connection, params: Mapping[str, Any]) -> Outcome:
        """Run the statement with ``params`` in ``conn``'s transaction."""
        if conn.dialect.name != "sqlite":
            result = conn.execute(self._statement, dict(params))
            key = result.inserted_primary_key if self._inserts else None
            return Outcome(result.rowcount, None if key is None else int(key[0]))
        plan = self._plans.get(tuple(params)) or self._compile(conn.dialect, tuple(params))
        values = tuple(
            params[name] if process is None else process(params[name])
            for name, process in zip(plan.names, plan.processors, strict=True)
        )
        cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            cursor.execute(plan.sql, values)
        except sqlite3.Error as error:
            raise exc.DBAPIError.instance(plan.sql, values, error, sqlite3.Error) from error
        return Outcome(cursor.rowcount, cursor.lastrowid if self._inserts else None)

    def _compile(self, dialect: Dialect, keys: tuple[str, ...]) -> _Plan:
        compiled = self._statement.compile(dialect=dialect, column_keys=list(keys))
        names = tuple(compiled.positiontup or ())
        processors = tuple(
            compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect)
            for name in names
        )
        plan = _Plan(compiled.string, names, processors)
        self._plans[keys] = plan
        return plan
