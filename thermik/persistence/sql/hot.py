"""The engine's hot statements, run on the driver's cursor.

A resource action writes a handful of short statements. SQLAlchemy's execution machinery costs
more CPU than the driver for each of them: on SQLite more than SQLite itself
(``bench/store_bench.py``), on PostgreSQL about 65 of the 120 us a statement cost in all. So
these statements are compiled by SQLAlchemy once per set of parameter names (same SQL, same
type processing, the dialect's parameter style) and executed directly on the DBAPI cursor
(sqlite3, psycopg, PyMySQL), inside the connection's transaction. SQL echo does not show them.

On PostgreSQL a plan's SQL is also written in the server's own ``$n`` placeholders once and run
on psycopg's raw cursor: psycopg otherwise parses each statement's ``%(name)s`` text on every
execution, from a cache only for statements up to 4 KB and 50 parameters. A one-statement
record (``one_statement``) is often longer: parsing it cost 100 us a record, where binding its
values costs 5.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, Dialect, exc
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler
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
    #: (position or name, processor) of the parameters that need converting (most need none).
    conversions: tuple[tuple[Any, Callable[[Any], Any]], ...]
    #: Whether the driver takes a list (SQLite's ``?``) or a mapping (``%(name)s``).
    positional: bool
    #: Whether the statement hands the generated key back as a row (PostgreSQL's RETURNING).
    returns_key: bool
    #: The driver's cursor class to run ``sql`` on (``None``: the connection's own).
    cursor_class: Any = None

    def bind(self, params: Mapping[str, Any]) -> Any:
        """The values of ``params`` for the driver, converted."""
        values: Any = (
            [params[name] for name in self.names]
            if self.positional
            else {name: params[name] for name in self.names}
        )
        for where, convert in self.conversions:
            values[where] = convert(values[where])
        return values


class HotStatement:
    """An INSERT, UPDATE or DELETE whose columns come from each call's parameters."""

    def __init__(self, statement: Insert | Update | Delete, *, explicit: bool = False) -> None:
        """``explicit``: the statement names every parameter itself (none become columns)."""
        self._statement = statement
        self._explicit = explicit
        # An INSERT ... SELECT generates no one key to hand back.
        self._inserts = isinstance(statement, Insert) and statement.select is None
        self._plans: dict[tuple[Any, ...], _Plan] = {}

    @property
    def statement(self) -> Insert | Update | Delete:
        """The statement as built (the columns to set not yet chosen)."""
        return self._statement

    def execute(self, conn: Connection, params: Mapping[str, Any]) -> Outcome:
        """Run the statement with ``params`` in ``conn``'s transaction."""
        plan = self._plan(conn.dialect, tuple(params), self._inserts)
        cursor = _run(conn, plan, plan.bind(params), many=False)
        if not self._inserts:
            return Outcome(cursor.rowcount, None)
        key = cursor.fetchone()[0] if plan.returns_key else cursor.lastrowid
        return Outcome(cursor.rowcount, int(key))

    def execute_many(self, conn: Connection, rows: Sequence[Mapping[str, Any]]) -> None:
        """Run the statement for each of ``rows`` (all with the same keys) in ``conn``'s
        transaction, in one driver call (an action's two events, say)."""
        if len(rows) == 1:
            plan = self._plan(conn.dialect, tuple(rows[0]), False)
            _run(conn, plan, plan.bind(rows[0]), many=False)
            return
        self._driver_many(conn, rows)

    def insert_many(self, conn: Connection, rows: Sequence[Mapping[str, Any]]) -> int:
        """Run this INSERT for each of ``rows`` (all with the same keys) in one call, in
        ``conn``'s transaction (SQLite only); the id generated for the last row."""
        cursor = self._driver_many(conn, rows)
        # ``lastrowid`` is not set by ``executemany``; the connection knows it.
        (last,) = cursor.execute("SELECT last_insert_rowid()").fetchone()
        return int(last)

    def inserted_ids(self, conn: Connection, rows: Sequence[Mapping[str, Any]]) -> list[int]:
        """Run this INSERT for each of ``rows`` (all with the same keys) in one call, in
        ``conn``'s transaction (PostgreSQL only); the ids generated, in the rows' order.

        psycopg sends the rows as one pipeline of one prepared statement: a stack's 500 rows
        cost a quarter of the CPU of SQLAlchemy's multi-row INSERTs, whose long text the
        driver parses anew each time."""
        plan = self._plan(conn.dialect, tuple(rows[0]), True)
        values = [plan.bind(params) for params in rows]
        cursor = _run(conn, plan, values, many=True, returning=True)
        ids = [int(cursor.fetchone()[0])]
        while cursor.nextset():
            ids.append(int(cursor.fetchone()[0]))
        return ids

    def _driver_many(self, conn: Connection, rows: Sequence[Mapping[str, Any]]) -> Any:
        """``executemany`` on the driver's cursor; the cursor."""
        plan = self._plan(conn.dialect, tuple(rows[0]), False)
        return _run(conn, plan, [plan.bind(params) for params in rows], many=True)

    def _plan(self, dialect: Dialect, keys: tuple[str, ...], key_back: bool) -> _Plan:
        # The SQL depends on the database and its version (MariaDB's upsert, say): one
        # process may use several (the tests do).
        found = (dialect.name, dialect.server_version_info, keys, key_back)
        return self._plans.get(found) or self._compile(dialect, found)

    def _compile(self, dialect: Dialect, found: tuple[Any, ...]) -> _Plan:
        keys: tuple[str, ...] = found[2]
        key_back: bool = found[3]
        statement = self._statement
        # PostgreSQL's driver has no ``lastrowid``: the key comes back as a row.
        returns_key = key_back and dialect.name == "postgresql"
        if returns_key:
            assert isinstance(statement, Insert)
            statement = statement.returning(*statement.table.primary_key)
        compiled = statement.compile(
            dialect=dialect, column_keys=None if self._explicit else list(keys)
        )
        positional = compiled.positiontup is not None
        names = tuple(compiled.positiontup or compiled.binds)
        processors = (_processor(compiled.binds[name].type, dialect) for name in names)
        conversions = tuple(
            (position if positional else name, process)
            for position, (name, process) in enumerate(zip(names, processors, strict=True))
            if process is not None
        )
        plan = _Plan(compiled.string, names, conversions, positional, returns_key)
        plan = _server_placeholders(plan, dialect)
        self._plans[found] = plan
        return plan


#: A named pyformat placeholder, or an escaped percent sign.
_PYFORMAT = re.compile(r"%\((\w+)\)s|%%")


def _server_placeholders(plan: _Plan, dialect: Dialect) -> _Plan:
    """``plan`` in PostgreSQL's ``$n`` placeholders for psycopg's raw cursor (one number per
    parameter name, as psycopg itself numbers them), or ``plan`` itself for other drivers."""
    if dialect.driver != "psycopg" or plan.positional:
        return plan
    # ``dbapi``: a dialect made without a driver (to compile SQL) has none to run it on.
    raw_cursor = getattr(dialect.dbapi, "RawCursor", None)
    if raw_cursor is None:
        return plan
    numbers: dict[str, int] = {}

    def number(found: re.Match[str]) -> str:
        name = found.group(1)
        if name is None:
            return "%"
        return f"${numbers.setdefault(name, len(numbers) + 1)}"

    sql = _PYFORMAT.sub(number, plan.sql)
    names = tuple(numbers)
    position = {name: index for index, name in enumerate(names)}
    conversions = tuple((position[name], convert) for name, convert in plan.conversions)
    return dataclasses.replace(
        plan,
        sql=sql,
        names=names,
        conversions=conversions,
        positional=True,
        cursor_class=raw_cursor,
    )


def _run(
    conn: Connection, plan: _Plan, values: Any, *, many: bool, returning: bool = False
) -> Any:
    """Execute ``plan`` on the driver's cursor of ``conn`` (in its transaction); the cursor.
    A driver error becomes SQLAlchemy's, as on the normal path; a lost connection is
    invalidated so that the pool does not hand it out again."""
    driver: Any = conn.connection.driver_connection
    cursor = driver.cursor() if plan.cursor_class is None else plan.cursor_class(driver)
    dialect = conn.dialect
    try:
        if returning:
            cursor.executemany(plan.sql, values, returning=True)
        elif many:
            cursor.executemany(plan.sql, values)
        else:
            cursor.execute(plan.sql, values)
    except dialect.loaded_dbapi.Error as error:
        lost = dialect.is_disconnect(error, conn.connection.dbapi_connection, cursor)
        if lost:
            conn.invalidate(error)
        raise exc.DBAPIError.instance(
            plan.sql,
            values,
            error,
            dialect.loaded_dbapi.Error,
            connection_invalidated=lost,
            dialect=dialect,
        ) from error
    return cursor


class TextPlan:
    """SQL text written around compiled statements (a MariaDB compound statement), run like a
    hot statement: each part is compiled for the dialect, its parameters named as the part
    names them (a dialect with named parameters only)."""

    def __init__(self, dialect: Dialect) -> None:
        self._dialect = dialect
        self._names: dict[str, Processor] = {}

    def part(self, statement: ClauseElement) -> str:
        """The SQL of ``statement``; its parameters become the plan's."""
        compiled = statement.compile(dialect=self._dialect)
        assert isinstance(compiled, SQLCompiler)
        if compiled.positiontup is not None:
            raise TypeError("a text plan needs named parameters")
        for name, bind in compiled.binds.items():
            self._names[name] = _processor(bind.type, self._dialect)
        return compiled.string

    def plan(self, sql: str) -> _Plan:
        """The plan running ``sql``, written around the parts."""
        conversions = tuple((name, p) for name, p in self._names.items() if p is not None)
        return _Plan(sql, tuple(self._names), conversions, False, False)


def run_plan(conn: Connection, plan: _Plan, params: Mapping[str, Any]) -> Any:
    """Run ``plan`` (a :class:`TextPlan`'s) with ``params`` in ``conn``'s transaction; the
    driver's cursor."""
    return _run(conn, plan, plan.bind(params), many=False)


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
