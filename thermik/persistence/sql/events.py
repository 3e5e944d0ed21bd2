"""Events (append, page, prune) and the append-only convergence join log."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

from sqlalchemy import Connection, Row, Select, and_, bindparam, delete, insert, select

from thermik.errors import InvalidRequest, StackNotFound
from thermik.persistence.crypto import SecretBox
from thermik.persistence.resource_values import Event, EventQuery, JoinArrival, NewEvent
from thermik.persistence.row_ids import row_uuid
from thermik.persistence.sql.base import SqlBase, check_length, reason
from thermik.persistence.sql.hot import HotStatement
from thermik.persistence.sql.tables import EVENT, JOIN_ARRIVAL, RESOURCE
from thermik.persistence.store import EventStore

INSERT_EVENT = HotStatement(insert(EVENT))
INSERT_ARRIVAL = HotStatement(insert(JOIN_ARRIVAL))
#: A join arrival's columns besides its stack.
ARRIVAL_COLUMNS = ("traversal_id", "node", "sender", "payload", "created_at")
#: The columns a row's join arrival sets, in ``ROW_ARRIVAL``'s order.
ARRIVAL_TARGETS = ["stack_id", *ARRIVAL_COLUMNS]
#: A node's join arrival, recorded for the stack its row belongs to (read in the same
#: statement: the guarded write that carries it need not be told the stack).
ROW_ARRIVAL = insert(JOIN_ARRIVAL).from_select(
    ARRIVAL_TARGETS,
    select(
        RESOURCE.c.stack_id,
        *(bindparam(f"a_{name}", type_=JOIN_ARRIVAL.c[name].type) for name in ARRIVAL_COLUMNS),
    ).where(RESOURCE.c.id == bindparam("b_id")),
)
_ARRIVALS = select(
    JOIN_ARRIVAL.c.traversal_id, JOIN_ARRIVAL.c.node, JOIN_ARRIVAL.c.sender, JOIN_ARRIVAL.c.payload
)

_ARRIVALS_OF = delete(JOIN_ARRIVAL).where(JOIN_ARRIVAL.c.stack_id == bindparam("b_stack"))
_OTHER_ARRIVALS_OF = _ARRIVALS_OF.where(JOIN_ARRIVAL.c.traversal_id != bindparam("b_keep"))


def _to_event(secrets: SecretBox, row: Row[Any] | SimpleNamespace) -> Event:
    return Event(
        id=row.uuid,
        stack_id=row.stack_id,
        resource_name=row.resource_name,
        resource_action=row.resource_action,
        resource_status=row.resource_status,
        resource_status_reason=row.resource_status_reason,
        resource_type=row.resource_type,
        physical_resource_id=row.physical_resource_id,
        resource_properties=secrets.unseal(
            row.resource_properties, "events", row.uuid, "resource_properties"
        ),
        created_at=row.created_at,
    )


def event_row(secrets: SecretBox, new: NewEvent, now: datetime.datetime) -> dict[str, Any]:
    """The row of the event table that records ``new`` at ``now`` (its properties sealed)."""
    check_length("resource_name", new.resource_name, 255)
    return {
        "uuid": row_uuid(),
        "stack_id": new.stack_id,
        "resource_name": new.resource_name,
        "resource_action": new.resource_action,
        "resource_status": new.resource_status,
        "resource_status_reason": reason(new.resource_status_reason),
        "resource_type": new.resource_type,
        "physical_resource_id": new.physical_resource_id,
        "resource_properties": secrets.seal(new.resource_properties),
        "created_at": now,
    }


def _no_stack(stack_id: str) -> Callable[[], StackNotFound]:
    return lambda: StackNotFound(f"stack {stack_id} not found", stack=stack_id)


def arrival_row(
    secrets: SecretBox, stack_id: str, arrival: JoinArrival, now: datetime.datetime
) -> dict[str, Any]:
    """The row of the join log recording ``arrival`` (its node data sealed)."""
    check_length("node", arrival.node, 255)
    check_length("sender", arrival.sender, 255)
    return {
        "stack_id": stack_id,
        "traversal_id": arrival.traversal_id,
        "node": arrival.node,
        "sender": arrival.sender,
        "payload": secrets.seal(arrival.payload),
        "created_at": now,
    }


def _event_filters(query: EventQuery) -> list[Any]:
    where = [EVENT.c.stack_id == query.stack_id]
    for name in ("resource_name", "resource_action", "resource_status"):
        value = getattr(query, name)
        if value is not None:
            where.append(EVENT.c[name] == value)
    return where


class SqlEvents(SqlBase, EventStore):
    """Events and join arrivals in SQL."""

    def append_event(self, new: NewEvent) -> Event:
        row = event_row(self._secrets, new, self._clock())
        self._write_referring(
            lambda conn: INSERT_EVENT.execute(conn, row), _no_stack(new.stack_id)
        )
        self._announce((row,), (new,))
        return _to_event(self._secrets, SimpleNamespace(**row))

    def list_events(self, query: EventQuery) -> list[Event]:
        if query.sort_dir not in ("asc", "desc"):
            raise InvalidRequest(f"sort direction must be asc or desc, not {query.sort_dir!r}")
        if query.limit is not None and query.limit < 0:
            raise InvalidRequest("limit must not be negative", path=("limit",))
        ascending = query.sort_dir == "asc"

        def work(conn: Connection) -> list[Row[Any]]:
            stmt = select(EVENT).where(*_event_filters(query))
            if query.marker is not None:
                marker = conn.execute(
                    select(EVENT.c.id).where(
                        EVENT.c.uuid == query.marker, EVENT.c.stack_id == query.stack_id
                    )
                ).scalar()
                if marker is None:
                    raise InvalidRequest(f"marker {query.marker} is not an event of this stack")
                stmt = stmt.where(EVENT.c.id > marker if ascending else EVENT.c.id < marker)
            stmt = stmt.order_by(EVENT.c.id.asc() if ascending else EVENT.c.id.desc())
            if query.limit is not None:
                stmt = stmt.limit(query.limit)
            return list(conn.execute(stmt).all())

        return [_to_event(self._secrets, row) for row in self._db.read(work)]

    def prune_events(self, stack_id: str, keep: int) -> int:
        if keep < 0:
            raise InvalidRequest("the number of events to keep must not be negative")

        def work(conn: Connection) -> int:
            newest = (
                select(EVENT.c.id)
                .where(EVENT.c.stack_id == stack_id)
                .order_by(EVENT.c.id.desc())
                .offset(keep)
                .limit(1)
            )
            cutoff = conn.execute(newest).scalar()
            if cutoff is None:
                return 0
            stmt = delete(EVENT).where(and_(EVENT.c.stack_id == stack_id, EVENT.c.id <= cutoff))
            return int(conn.execute(stmt).rowcount)

        return self._db.write(work)

    def append_arrival(self, stack_id: str, arrival: JoinArrival) -> None:
        self.append_arrivals(stack_id, (arrival,))

    def append_arrivals(self, stack_id: str, arrivals: Sequence[JoinArrival]) -> None:
        if not arrivals:
            return
        now = self._clock()
        rows = [arrival_row(self._secrets, stack_id, arrival, now) for arrival in arrivals]

        def work(conn: Connection) -> None:
            for row in rows:
                INSERT_ARRIVAL.execute(conn, row)

        self._write_referring(work, _no_stack(stack_id))

    def list_arrivals(self, traversal_id: str, node: str) -> list[JoinArrival]:
        stmt = _ARRIVALS.where(
            JOIN_ARRIVAL.c.traversal_id == traversal_id, JOIN_ARRIVAL.c.node == node
        ).order_by(JOIN_ARRIVAL.c.id)
        return self._arrivals(stmt)

    def list_traversal_arrivals(self, traversal_id: str) -> list[JoinArrival]:
        stmt = _ARRIVALS.where(JOIN_ARRIVAL.c.traversal_id == traversal_id).order_by(
            JOIN_ARRIVAL.c.id
        )
        return self._arrivals(stmt)

    def _arrivals(self, stmt: Select[Any]) -> list[JoinArrival]:
        rows = self._db.read(lambda conn: conn.execute(stmt).all())
        unseal = self._secrets.unseal
        return [
            JoinArrival(traversal, node, sender, unseal(payload, "join", traversal, node))
            for traversal, node, sender, payload in rows
        ]

    def delete_arrivals(self, stack_id: str, *, except_traversal: str | None = None) -> int:
        stmt, params = _ARRIVALS_OF, {"b_stack": stack_id}
        if except_traversal is not None:
            stmt, params = _OTHER_ARRIVALS_OF, {**params, "b_keep": except_traversal}
        return int(self._db.write(lambda conn: conn.execute(stmt, params).rowcount))
