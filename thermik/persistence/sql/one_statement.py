"""PostgreSQL: a guarded write and everything it carries, sent as one statement.

A resource action's record is a guarded UPDATE of its row, the property and attribute blobs the
row then points to, the action's events, the resource data it wrote and the node's join arrival:
up to six statements, each a round trip. On PostgreSQL each cost the engine 40 to 65 us of CPU
(the driver, and the thread's wake-up when the answer arrives), several times what it costs
on SQLite, and that cost was most of what a resource costs more there. PostgreSQL runs
data-modifying ``WITH`` clauses as parts of one statement: the blob INSERTs become ``WITH``
clauses whose ids the UPDATE sets, the other writes clauses beside them, and the record is one
round trip.

A first clause locks the row (``SELECT ... FOR UPDATE``) if it matches the UPDATE's guard, and
every other clause, the UPDATE too, writes only if it found it: a record whose row moved on
writes nothing at all. So the statement is whole by itself, and a lone one may run outside a
transaction, in one round trip rather than ``BEGIN``, the statement and ``COMMIT``. (Once the
lock is taken the UPDATE matches too: the row cannot change until the statement ends, and a
key never goes back.) A row past its first version may have blobs already: each is then
rewritten in place by one clause, and inserted by the next only if the first found none.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import (
    Column,
    ColumnElement,
    bindparam,
    delete,
    exists,
    func,
    insert,
    select,
    union_all,
    update,
)
from sqlalchemy.dialects import postgresql
from sqlalchemy.sql.dml import Update
from sqlalchemy.sql.selectable import Exists

from thermik.persistence.sql.events import ARRIVAL_TARGETS, ROW_ARRIVAL
from thermik.persistence.sql.hot import HotStatement
from thermik.persistence.sql.resource_data import DATA_COLUMNS, KEY_COLUMNS
from thermik.persistence.sql.tables import (
    EVENT,
    PROPERTIES_DATA,
    RESOURCE,
    RESOURCE_DATA,
)

#: Blob column of the row -> the prefix of its blob's parameters.
BLOB_PREFIX = {"properties_data_id": "p", "attr_data_id": "t"}
#: The parameters of the guarded UPDATE's WHERE clause (the others are columns it sets).
WHERE_PARAMS = frozenset({"b_id", "b_key", "b_engine"})


@dataclasses.dataclass(frozen=True, slots=True)
class Record:
    """What a guarded write carries, as rows of parameters: new blobs by row column, events,
    resource data writes (a row without ``value`` deletes its key) and the join arrival's
    parameters (``a_*`` and ``b_id``, as the separate statement takes them)."""

    blobs: Mapping[str, Mapping[str, Any]]
    events: Sequence[Mapping[str, Any]]
    data: Sequence[Mapping[str, Any]]
    arrival: Mapping[str, Any] | None

    def shape(self, params: Mapping[str, Any]) -> tuple[Any, ...]:
        """What the statement's text depends on (with the UPDATE's ``params``)."""
        return (
            tuple(params),
            tuple(self.blobs),
            tuple(tuple(row) for row in self.events),
            tuple("value" in row for row in self.data),
            self.arrival is not None,
        )

    def parameters(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The parameters of the one statement, each part's under its own prefix."""
        flat = {
            (key if key in WHERE_PARAMS else f"s_{key}"): value for key, value in params.items()
        }
        for column, row in self.blobs.items():
            flat.update(_prefixed(BLOB_PREFIX[column], row))
        for index, row in enumerate(self.events):
            flat.update(_prefixed(f"e{index}", row))
        for index, row in enumerate(self.data):
            flat.update(_prefixed(f"d{index}", row))
        if self.arrival is not None:
            flat.update(self.arrival)
        return flat


def _prefixed(prefix: str, row: Mapping[str, Any]) -> dict[str, Any]:
    return {f"{prefix}_{key}": value for key, value in row.items()}


def guarded_update(base: HotStatement) -> Update:
    """The UPDATE of the guarded write ``base`` (``TypeError`` if it is none)."""
    if not isinstance(base.statement, Update):
        raise TypeError("a guarded write is an UPDATE")
    return base.statement


class OneStatement:
    """The one-statement form of a guarded UPDATE (``base``), built once per shape."""

    def __init__(self, base: HotStatement) -> None:
        self._base = guarded_update(base)
        self._built: dict[tuple[Any, ...], HotStatement] = {}

    def statement(self, params: Mapping[str, Any], record: Record, *, fresh: bool) -> HotStatement:
        """The statement writing ``record`` with the UPDATE's ``params``; ``fresh``: the row
        is still its first version, with no blobs yet."""
        shape = (fresh, *record.shape(params))
        found = self._built.get(shape)
        if found is None:
            found = self._built[shape] = self._build(params, record, fresh)
        return found

    def _build(self, params: Mapping[str, Any], record: Record, fresh: bool) -> HotStatement:
        sets: dict[str, Any] = {
            key: prefixed_bind("s", RESOURCE.c[key]) for key in params if key not in WHERE_PARAMS
        }
        assert self._base.whereclause is not None
        guard = select(RESOURCE.c.id).where(self._base.whereclause).with_for_update()
        found = exists(select(guard.cte("guard").c.id))
        clauses: list[Any] = []
        for column in record.blobs:
            prefix, keys = BLOB_PREFIX[column], tuple(record.blobs[column])
            if fresh:
                blob = _blob_insert(prefix, keys, found)
                clauses.append(blob)
                sets[column] = select(blob.c.id).scalar_subquery()
                continue
            rewritten = _blob_rewrite(prefix, keys, RESOURCE.c[column], found)
            inserted = _blob_insert(prefix, keys, found, unless=rewritten)
            clauses += [rewritten, inserted]
            sets[column] = func.coalesce(
                select(rewritten.c.id).scalar_subquery(), select(inserted.c.id).scalar_subquery()
            )
        if record.events:
            clauses.append(_events_insert([tuple(row) for row in record.events], found))
        for index, row in enumerate(record.data):
            clauses.append(_data_write(f"d{index}", "value" in row, found))
        if record.arrival is not None:
            clauses.append(_arrival_insert(found))
        if not clauses:
            return HotStatement(self._base.values(sets), explicit=True)
        # The UPDATE asks for the guard too, so that the lock is taken before the row changes:
        # a clause that read the guard only after the UPDATE would find the row already
        # changed by this statement, which FOR UPDATE skips.
        guarded = self._base.where(found).values(sets).add_cte(*clauses)
        return HotStatement(guarded, explicit=True)


def prefixed_bind(prefix: str, column: Column[Any]) -> ColumnElement[Any]:
    """The parameter for ``column`` of the part named ``prefix`` (see ``Record.parameters``)."""
    return bindparam(f"{prefix}_{column.key}", type_=column.type)


def _blob_insert(prefix: str, keys: Sequence[str], found: Exists, *, unless: Any = None) -> Any:
    """A new blob if the guard ``found`` the row (``unless``: only when that rewrite found
    none)."""
    binds = [prefixed_bind(prefix, PROPERTIES_DATA.c[key]) for key in keys]
    wanted = select(*binds).where(found)
    if unless is not None:
        wanted = wanted.where(~exists(select(unless.c.id)))
    inserted = insert(PROPERTIES_DATA).from_select(list(keys), wanted)
    return inserted.returning(PROPERTIES_DATA.c.id).cte(f"{prefix}_blob")


def _blob_rewrite(prefix: str, keys: Sequence[str], column: Column[Any], found: Exists) -> Any:
    """The blob the row's ``column`` points to, rewritten in place (no row if it has none)."""
    owner = select(column).where(RESOURCE.c.id == bindparam("b_id")).scalar_subquery()
    rewritten = (
        update(PROPERTIES_DATA)
        .where(PROPERTIES_DATA.c.id == owner, found)
        .values({key: prefixed_bind(prefix, PROPERTIES_DATA.c[key]) for key in keys})
    )
    return rewritten.returning(PROPERTIES_DATA.c.id).cte(f"{prefix}_old")


def _events_insert(shapes: Sequence[tuple[str, ...]], found: Exists) -> Any:
    # One INSERT for all: the events' ids are their order, and separate clauses would run in
    # no set order. (Each parameter is cast to its column's type, so the UNION's are known.)
    rows = [
        select(*(prefixed_bind(f"e{index}", EVENT.c[key]) for key in keys)).where(found)
        for index, keys in enumerate(shapes)
    ]
    if len({*shapes}) != 1:
        raise ValueError("the events of one record have the same columns")
    wanted = rows[0] if len(rows) == 1 else union_all(*rows)
    return insert(EVENT).from_select(list(shapes[0]), wanted).cte("events")


def _data_write(prefix: str, upsert: bool, found: Exists) -> Any:
    if not upsert:
        gone = delete(RESOURCE_DATA).where(
            RESOURCE_DATA.c.resource_id == bindparam(f"{prefix}_b_resource"),
            RESOURCE_DATA.c.key == bindparam(f"{prefix}_b_key"),
            found,
        )
        return gone.cte(f"{prefix}_data")
    columns = ("resource_id", "key", *DATA_COLUMNS)
    row = select(*(prefixed_bind(prefix, RESOURCE_DATA.c[key]) for key in columns)).where(found)
    written = postgresql.insert(RESOURCE_DATA).from_select(list(columns), row)
    return written.on_conflict_do_update(
        index_elements=KEY_COLUMNS,
        set_={key: written.excluded[key] for key in DATA_COLUMNS},
    ).cte(f"{prefix}_data")


def _arrival_insert(found: Exists) -> Any:
    assert ROW_ARRIVAL.select is not None
    row = ROW_ARRIVAL.select.where(found)
    return insert(ROW_ARRIVAL.table).from_select(ARRIVAL_TARGETS, row).cte("arrival")
