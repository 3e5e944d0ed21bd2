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
import datetime
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, Dialect, exc
from sqlalchemy.sql.dml import Delete, Insert, Update

from thermik.persistence.sqltypes import UTCDateTime

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
    #: (position, processor) of the parameters that need converting (most need none).
    conversions: tuple[tuple[int, Callable[[Any], Any]], ...]

    def bind(self, params: Mapping[str, Any]) -> list[Any]:
        """The positional values of ``params``, converted for the driver."""
        values = [params[name] for name in self.names]
        for position, convert in self.conversions:
            values[position] = convert(values[position])
        return values


class HotStatement:
    """An INSERT, UPDATE or DELETE whose columns come from each call's parameters."""

    def __init__(self, statement: Insert | Update | Delete) -> None:
        self._statement = statement
        # An INSERT ... SELECT generates no one key to hand back.
        self._inserts = isinstance(statement, Insert) and statement.select is None
        self._plans: dict[tuple[str, ...], _Plan] = {}

    def execute(self, conn: Connection, params: Mapping[str, Any]) -> Outcome:
        """Run the statement with ``params`` in ``conn``'s transaction."""
        if conn.dialect.name != "sqlite":
            result = conn.execute(self._statement, dict(params))
            key = result.inserted_primary_key if self._inserts else None
            return Outcome(result.rowcount, None if key is None else int(key[0]))
        plan = self._plan(conn.dialect, tuple(params))
        values = plan.bind(params)
        cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            cursor.execute(plan.sql, values)
        except sqlite3.Error as error:
            raise exc.DBAPIError.instance(plan.sql, values, error, sqlite3.Error) from error
        return Outcome(cursor.rowcount, cursor.lastrowid if self._inserts else None)

    def execute_many(self, conn: Connection, rows: Sequence[Mapping[str, Any]]) -> None:
        """Run the statement for each of ``rows`` (all with the same keys) in ``conn``'s
        transaction: on SQLite in one driver call (an action's two events, say)."""
        if conn.dialect.name != "sqlite":
            conn.execute(self._statement, [dict(params) for params in rows])
            return
        self._driver_many(conn, rows)

    def insert_many(self, conn: Connection, rows: Sequence[Mapping[str, Any]]) -> int:
        """Run this INSERT for each of ``rows`` (all with the same keys) in one call, in
        ``conn``'s transaction (SQLite only); the id generated for the last row."""
        cursor = self._driver_many(conn, rows)
        # ``lastrowid`` is not set by ``executemany``; the connection knows it.
        (last,) = cursor.execute("SELECT last_insert_rowid()").fetchone()
        return int(last)

    def _driver_many(self, conn: Connection, rows: Sequence[Mapping[str, Any]]) -> Any:
        """``executemany`` on SQLite's driver cursor; the cursor."""
        plan = self._plan(conn.dialect, tuple(rows[0]))
        batch = [plan.bind(params) for params in rows]
        cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            cursor.executemany(plan.sql, batch)
        except sqlite3.Error as error:
            raise exc.DBAPIError.instance(plan.sql, batch, error, sqlite3.Error) from error
        return cursor

    def _plan(self, dialect: Dialect, keys: tuple[str, ...]) -> _Plan:
        return self._plans.get(keys) or self._compile(dialect, keys)

    def _compile(self, dialect: Dialect, keys: tuple[str, ...]) -> _Plan:
        compiled = self._statement.compile(dialect=dialect, column_keys=list(keys))
        names = tuple(compiled.positiontup or ())
        processors = (_processor(compiled.binds[name].type, dialect) for name in names)
        conversions = tuple(
            (position, process)
            for position, process in enumerate(processors)
            if process is not None
        )
        plan = _Plan(compiled.string, names, conversions)
        self._plans[keys] = plan
        return plan


def _processor(type_: Any, dialect: Dialect) -> Processor:
    """The bind processor of ``type_``: SQLAlchemy's, or an equivalent faster one."""
    generic: Processor = type_.dialect_impl(dialect).bind_processor(dialect)
    if (
        isinstance(type_, UTCDateTime)
        and generic is not None
        and all(generic(probe) == utc_text(probe) for probe in _PROBES)
    ):
        return utc_text
    return generic


def utc_text(value: datetime.datetime | None) -> str | None:
    """An aware datetime as SQLite's ``DATETIME`` text of its UTC time: what
    :class:`UTCDateTime` then SQLAlchemy's processor make of it, in two C calls instead of
    two layers of Python (every guarded write and event binds two or three datetimes)."""
    if value is None:
        return None
    if value.tzinfo is datetime.UTC:
        # The text without its "+00:00": the engine's own clock is UTC already.
        return value.isoformat(" ", "microseconds")[:-6]
    if value.tzinfo is None:
        raise ValueError("naive datetime given; Thermik stores aware UTC datetimes")
    return value.astimezone(datetime.UTC).replace(tzinfo=None).isoformat(" ", "microseconds")


#: Datetimes on which the faster processor must agree with SQLAlchemy's to be used.
_WEST = datetime.timezone(-datetime.timedelta(hours=3))
_PROBES = (
    datetime.datetime(2001, 2, 3, 4, 5, 6, 7, tzinfo=datetime.UTC),
    datetime.datetime(999, 12, 31, 23, 59, 59, tzinfo=_WEST),
    None,
)
