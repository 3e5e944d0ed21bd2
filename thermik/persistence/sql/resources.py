"""Resource versions and Heat's row lock: compare-and-swap on (engine_id, atomic_key).

This is the engine's hot path (every resource action locks and unlocks its row, or records a
store-only plugin's action in one write), so the statements are built once; the columns to SET
come from each call's parameters. Rows become values in :mod:`.resource_rows`.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import (
    Column,
    Connection,
    Select,
    bindparam,
    delete,
    insert,
    select,
    update,
)

from thermik.errors import GenerationConflict, LockConflict, ResourceNotFound, StackNotFound
from thermik.persistence.crypto import SecretBox
from thermik.persistence.resource_values import (
    NO_CHANGES,
    DataWrite,
    JoinArrival,
    NewEvent,
    NewResource,
    Resource,
    ResourceChanges,
)
from thermik.persistence.sql import compound
from thermik.persistence.sql.base import SqlBase
from thermik.persistence.sql.compound import Compound
from thermik.persistence.sql.events import (
    ARRIVAL_COLUMNS,
    INSERT_EVENT,
    ROW_ARRIVAL,
    arrival_row,
    event_row,
)
from thermik.persistence.sql.hot import HotStatement, Outcome
from thermik.persistence.sql.one_statement import OneStatement, Record
from thermik.persistence.sql.resource_data import blob_row, data_row, write_data
from thermik.persistence.sql.resource_rows import (
    NEW_ROW_KEY,
    SELECT_RESOURCE,
    columns_of,
    inserted,
    inserted_all,
    new_row,
    to_resource,
)
from thermik.persistence.sql.tables import PROPERTIES_DATA, RESOURCE
from thermik.persistence.store import ResourceStore
from thermik.persistence.values import JSON

_BY_ID = RESOURCE.c.id == bindparam("b_id")
_AT_KEY = RESOURCE.c.atomic_key == bindparam("b_key")
_UNLOCKED = HotStatement(update(RESOURCE).where(_BY_ID, _AT_KEY, RESOURCE.c.engine_id.is_(None)))
_HELD = HotStatement(
    update(RESOURCE).where(_BY_ID, _AT_KEY, RESOURCE.c.engine_id == bindparam("b_engine"))
)
#: PostgreSQL: each guarded UPDATE with what it carries, as one statement.
_ONE_STATEMENT = {stmt: OneStatement(stmt) for stmt in (_UNLOCKED, _HELD)}
#: MariaDB: each guarded UPDATE with what it carries, as one compound statement.
_COMPOUND = {stmt: Compound(stmt) for stmt in (_UNLOCKED, _HELD)}
_SET_METADATA = update(RESOURCE).where(
    _BY_ID, RESOURCE.c.metadata_generation == bindparam("b_generation")
)
_INSERT_BLOB = HotStatement(insert(PROPERTIES_DATA))
_INSERT_ROW_ARRIVAL = HotStatement(ROW_ARRIVAL)


# Read or run once per traversal or more: built once (SQLAlchemy then skips building the
# statement and its cache key on every call).
_ONE = SELECT_RESOURCE.where(RESOURCE.c.id == bindparam("b_id"))
_OF_STACK = SELECT_RESOURCE.where(RESOURCE.c.stack_id == bindparam("b_stack")).order_by(
    RESOURCE.c.id
)
_OF_ROOT = SELECT_RESOURCE.where(RESOURCE.c.root_stack_id == bindparam("b_root")).order_by(
    RESOURCE.c.id
)
_WITH_PHYSICAL_ID = SELECT_RESOURCE.where(
    RESOURCE.c.physical_resource_id == bindparam("b_physical")
).order_by(RESOURCE.c.id)
_NAMED = SELECT_RESOURCE.where(
    RESOURCE.c.stack_id == bindparam("b_stack"), RESOURCE.c.name == bindparam("b_name")
).order_by(RESOURCE.c.id)
_DELETED = delete(RESOURCE).where(
    RESOURCE.c.stack_id == bindparam("b_stack"),
    RESOURCE.c.action == "DELETE",
    RESOURCE.c.status == "COMPLETE",
)


def _row_arrival(
    secrets: SecretBox, resource_id: int, arrival: JoinArrival, now: datetime.datetime
) -> dict[str, Any]:
    """The parameters of :data:`_INSERT_ROW_ARRIVAL` (lengths checked as every arrival's)."""
    row = arrival_row(secrets, "", arrival, now)
    return {"b_id": resource_id, **{f"a_{name}": row[name] for name in ARRIVAL_COLUMNS}}


def _rewrite_blob(column: Column[Any]) -> HotStatement:
    owner = select(column).where(RESOURCE.c.id == bindparam("b_id")).scalar_subquery()
    return HotStatement(update(PROPERTIES_DATA).where(PROPERTIES_DATA.c.id == owner))


#: Blob column -> the statement rewriting the blob a row points to. A row's blobs are its own,
#: so they are rewritten in place: deleting one would make the database look for every row
#: still pointing at it (the blob columns have no index), a scan per write.
_REWRITE_BLOB = {
    "properties_data_id": _rewrite_blob(RESOURCE.c.properties_data_id),
    "attr_data_id": _rewrite_blob(RESOURCE.c.attr_data_id),
}


def _rewrite_blob_of(
    conn: Connection, column: str, row: Mapping[str, Any], resource_id: int
) -> bool:
    """Rewrite the blob the resource's ``column`` points to; whether it had one."""
    return bool(_REWRITE_BLOB[column].execute(conn, {**row, "b_id": resource_id}).rowcount)


class _Along:
    """What a guarded write stores besides the row: properties and attribute values
    (``None``: unchanged), a node's join arrival, and resource data rows (see ``data_row``);
    and whether it may commit lazily."""

    __slots__ = ("arrival", "attributes", "data", "lazy", "properties")

    def __init__(
        self,
        properties: Mapping[str, JSON] | None,
        attributes: Mapping[str, JSON] | None,
        arrival: JoinArrival | None = None,
        data: Sequence[dict[str, Any]] = (),
        *,
        lazy: bool = False,
    ) -> None:
        self.properties = properties
        self.attributes = attributes
        self.arrival = arrival
        self.data = data
        self.lazy = lazy

    def rows(self, secrets: SecretBox, now: datetime.datetime) -> dict[str, dict[str, Any]]:
        """Blob column -> the row of the new blob (sealed when ``secrets`` seal)."""
        found = {"properties_data_id": self.properties, "attr_data_id": self.attributes}
        return {
            column: blob_row(secrets, data, now)
            for column, data in found.items()
            if data is not None
        }


def _lock_lost(conn: Connection, resource_id: int, engine_id: str | None, key: int) -> None:
    row = conn.execute(
        select(RESOURCE.c.engine_id, RESOURCE.c.atomic_key).where(RESOURCE.c.id == resource_id)
    ).first()
    if row is None:
        raise ResourceNotFound(f"resource {resource_id} not found")
    holder = f"locked by engine {row.engine_id}" if row.engine_id else "unlocked"
    wanted = f"held by engine {engine_id}" if engine_id else "unlocked"
    raise LockConflict(
        f"resource {resource_id} is {holder} at atomic key {row.atomic_key}; "
        f"expected it {wanted} at atomic key {key}"
    )


def _no_stack(new: NewResource) -> Callable[[], StackNotFound]:
    return lambda: StackNotFound(
        f"stack {new.stack_id} or template {new.current_template_id} of resource "
        f"{new.name} not found",
        stack=new.stack_id,
    )


def _no_event_stack(events: Sequence[NewEvent]) -> StackNotFound:
    stack = events[0].stack_id if events else "?"
    return StackNotFound(f"stack {stack} of the event not found", stack=stack)


def _events(event: NewEvent | None) -> tuple[NewEvent, ...]:
    return () if event is None else (event,)


def _write(
    conn: Connection,
    stmt: HotStatement,
    params: dict[str, Any],
    record: Record,
    holder: str | None,
) -> None:
    """The guarded UPDATE ``stmt`` with ``params`` and what it carries, in ``conn``'s
    transaction (``LockConflict`` when the row is not at its key, held by ``holder``)."""
    # A row still at its first key has no blobs to rewrite (every write that gives a row
    # blobs moves its key on): a create's blobs are inserted without looking first.
    fresh = params["b_key"] == NEW_ROW_KEY
    if conn.dialect.name == "postgresql":
        statement = _ONE_STATEMENT[stmt].statement(params, record, fresh=fresh)
        updated = statement.execute(conn, record.parameters(params))
    elif compound.supported(conn.dialect):
        updated = _COMPOUND[stmt].execute(conn, params, record, fresh=fresh)
    else:
        updated = _separately(conn, stmt, params, record, fresh)
    if updated.rowcount != 1:
        _lock_lost(conn, params["b_id"], holder, params["b_key"])


def _separately(
    conn: Connection, stmt: HotStatement, params: dict[str, Any], record: Record, fresh: bool
) -> Outcome:
    """The statements of a guarded write one after another; the UPDATE's outcome (nothing
    follows an UPDATE that missed its row)."""
    for column, row in record.blobs.items():
        if fresh or not _rewrite_blob_of(conn, column, row, params["b_id"]):
            params[column] = _INSERT_BLOB.execute(conn, row).inserted_id
    updated = stmt.execute(conn, params)
    if updated.rowcount != 1:
        return updated
    if record.events:
        INSERT_EVENT.execute_many(conn, record.events)
    for row in record.data:
        write_data(conn, row)
    if record.arrival is not None:
        _INSERT_ROW_ARRIVAL.execute(conn, record.arrival)
    return updated


class SqlResources(SqlBase, ResourceStore):
    """Resource versions in SQL."""

    def create_resource(self, new: NewResource) -> Resource:
        row = new_row(new, self._clock())
        return self._write_referring(lambda conn: inserted(conn, row), _no_stack(new))

    def create_resources(self, news: Sequence[NewResource]) -> list[Resource]:
        if not news:
            return []
        now = self._clock()
        rows = [new_row(new, now) for new in news]
        return self._write_referring(lambda conn: inserted_all(conn, rows), _no_stack(news[0]))

    def replace_resource(self, old_id: int, atomic_key: int, new: NewResource) -> Resource:
        now = self._clock()
        row = new_row(new, now)
        row["replaces"] = old_id

        def work(conn: Connection) -> Resource:
            created = inserted(conn, row)
            params: dict[str, Any] = {"b_id": old_id, "b_key": atomic_key}
            params.update(atomic_key=atomic_key + 1)
            params.update(replaced_by=created.id, updated_at=now)
            if _UNLOCKED.execute(conn, params).rowcount != 1:
                _lock_lost(conn, old_id, None, atomic_key)  # rolls the insert back
            return created

        return self._write_referring(work, _no_stack(new))

    def get_resource(self, resource_id: int) -> Resource:
        row = self._db.read(lambda conn: conn.execute(_ONE, {"b_id": resource_id}).one_or_none())
        if row is None:
            raise ResourceNotFound(f"resource {resource_id} not found")
        return to_resource(row)

    def _select_many(self, stmt: Select[Any], params: dict[str, Any]) -> list[Resource]:
        shared: dict[str, tuple[int, ...]] = {}
        rows = self._db.read(lambda conn: conn.execute(stmt, params).all())
        return [to_resource(row, shared) for row in rows]

    def list_resources(self, stack_id: str) -> list[Resource]:
        return self._select_many(_OF_STACK, {"b_stack": stack_id})

    def list_resources_by_root(self, root_stack_id: str) -> list[Resource]:
        return self._select_many(_OF_ROOT, {"b_root": root_stack_id})

    def find_resources_by_physical_id(self, physical_resource_id: str) -> list[Resource]:
        return self._select_many(_WITH_PHYSICAL_ID, {"b_physical": physical_resource_id})

    def find_resources_by_name(self, stack_id: str, name: str) -> list[Resource]:
        return self._select_many(_NAMED, {"b_stack": stack_id, "b_name": name})

    def lock_resource(
        self,
        resource_id: int,
        engine_id: str,
        atomic_key: int,
        changes: ResourceChanges = NO_CHANGES,
        *,
        event: NewEvent | None = None,
        properties: Mapping[str, JSON] | None = None,
        attributes: Mapping[str, JSON] | None = None,
    ) -> int:
        along = _Along(properties, attributes)
        return self._guarded(
            _UNLOCKED, resource_id, None, atomic_key, changes, engine_id, _events(event), along
        )

    def unlock_resource(
        self,
        resource_id: int,
        engine_id: str,
        atomic_key: int,
        changes: ResourceChanges = NO_CHANGES,
        *,
        event: NewEvent | None = None,
        properties: Mapping[str, JSON] | None = None,
        attributes: Mapping[str, JSON] | None = None,
        arrival: JoinArrival | None = None,
    ) -> int:
        along = _Along(properties, attributes, arrival)
        return self._guarded(
            _HELD, resource_id, engine_id, atomic_key, changes, None, _events(event), along
        )

    def update_resource(
        self,
        resource_id: int,
        atomic_key: int,
        changes: ResourceChanges,
        *,
        engine_id: str | None = None,
        event: NewEvent | None = None,
        properties: Mapping[str, JSON] | None = None,
        attributes: Mapping[str, JSON] | None = None,
        arrival: JoinArrival | None = None,
    ) -> int:
        stmt = _UNLOCKED if engine_id is None else _HELD
        along = _Along(properties, attributes, arrival)
        return self._guarded(
            stmt, resource_id, engine_id, atomic_key, changes, engine_id, _events(event), along
        )

    def record_action(
        self,
        resource_id: int,
        atomic_key: int,
        changes: ResourceChanges,
        *,
        events: Sequence[NewEvent],
        data: Sequence[DataWrite] = (),
        properties: Mapping[str, JSON] | None = None,
        attributes: Mapping[str, JSON] | None = None,
        arrival: JoinArrival | None = None,
    ) -> int:
        # The last write of a key is the one that counts; on PostgreSQL the writes are clauses
        # of one statement, which may change a row only once.
        last = {one.key: one for one in data}
        written = [
            data_row(self._secrets, resource_id, one.key, one.value, one.redact)
            for one in last.values()
        ]
        # A store-only action changed nothing outside the database: its record may commit
        # lazily (see ``ResourceStore.record_action``).
        along = _Along(properties, attributes, arrival, written, lazy=True)
        return self._guarded(
            _UNLOCKED, resource_id, None, atomic_key, changes, None, tuple(events), along
        )

    def _guarded(
        self,
        stmt: HotStatement,
        resource_id: int,
        holder: str | None,
        atomic_key: int,
        changes: ResourceChanges,
        new_holder: str | None,
        events: tuple[NewEvent, ...],
        along: _Along,
    ) -> int:
        """One guarded UPDATE (``holder`` expected, ``new_holder`` set), its events, blobs,
        resource data and join arrival."""
        params = columns_of(changes)
        params.update(engine_id=new_holder, atomic_key=atomic_key + 1, updated_at=self._clock())
        params.update(b_id=resource_id, b_key=atomic_key)
        if holder is not None:
            params["b_engine"] = holder

        now = params["updated_at"]
        secrets = self._secrets.for_one_write()
        event_values = [event_row(secrets, event, now) for event in events]
        blob_rows = along.rows(secrets, now)
        arrival_values = None
        if along.arrival is not None:
            arrival_values = _row_arrival(secrets, resource_id, along.arrival, now)

        record = Record(blob_rows, event_values, along.data, arrival_values)

        def work(conn: Connection) -> int:
            _write(conn, stmt, params, record, holder)
            return atomic_key + 1

        # PostgreSQL writes it all in one statement, whole by itself (see ``one_statement``).
        whole = self._db.dialect == "postgresql"
        key = self._write_referring(
            work, lambda: _no_event_stack(events), lazy=along.lazy, whole=whole
        )
        if event_values:
            self._announce(event_values, events)
        return key

    def delete_resource(self, resource_id: int) -> None:
        stmt = delete(RESOURCE).where(RESOURCE.c.id == resource_id)
        self._db.write(lambda conn: conn.execute(stmt))

    def delete_deleted_resources(self, stack_id: str) -> int:
        params = {"b_stack": stack_id}
        return int(self._db.write(lambda conn: conn.execute(_DELETED, params).rowcount))

    def set_resource_metadata(
        self, resource_id: int, metadata: Mapping[str, JSON], expected_generation: int
    ) -> int:
        params = {
            "b_id": resource_id,
            "b_generation": expected_generation,
            "rsrc_metadata": dict(metadata),
            "metadata_generation": expected_generation + 1,
        }

        def work(conn: Connection) -> int:
            if conn.execute(_SET_METADATA, params).rowcount == 1:
                return expected_generation + 1
            stmt = select(RESOURCE.c.metadata_generation).where(RESOURCE.c.id == resource_id)
            current = conn.execute(stmt).scalar()
            if current is None:
                raise ResourceNotFound(f"resource {resource_id} not found")
            raise GenerationConflict(
                f"resource {resource_id}: metadata generation is {current}, "
                f"expected {expected_generation}"
            )

        return self._db.write(work)
