"""The engine registry (heartbeats) and stack leases.

Expiry is judged by the store's clock: engines sharing a database must keep their clocks
within a small fraction of the lease time (NTP does), as with Heat's service heartbeats.
"""

from __future__ import annotations

import datetime
from typing import Any

from sqlalchemy import Connection, Row, bindparam, delete, insert, select, update
from sqlalchemy import exc as sa_exc

from thermik.errors import InvalidInput, LeaseConflict, NotFound, StackNotFound
from thermik.persistence import dberrors
from thermik.persistence.software_values import EngineRecord, StackLease
from thermik.persistence.sql.base import SqlBase
from thermik.persistence.sql.tables import ENGINE_SERVICE, STACK_LEASE
from thermik.persistence.store import EngineStore
from thermik.persistence.values import NewLease

_LEASE = select(STACK_LEASE)
# Every traversal takes and releases its stack's lease: these statements are built once.
_LEASE_OF = _LEASE.where(STACK_LEASE.c.stack_id == bindparam("b_stack"))
_INSERT_LEASE = insert(STACK_LEASE)
#: A lease row changed only if nobody changed it since it was read (the values to set come
#: from each call's parameters).
_LEASE_CAS = update(STACK_LEASE).where(
    STACK_LEASE.c.stack_id == bindparam("b_stack"),
    STACK_LEASE.c.engine_id == bindparam("b_engine"),
    STACK_LEASE.c.epoch == bindparam("b_epoch"),
)
_RELEASE = update(STACK_LEASE).where(
    STACK_LEASE.c.stack_id == bindparam("b_stack"),
    STACK_LEASE.c.engine_id == bindparam("b_engine"),
)
#: ``engine_id`` of a released lease. The row stays so that ``epoch`` keeps growing.
_RELEASED = ""


def _to_engine(row: Row[Any]) -> EngineRecord:
    return EngineRecord(
        id=row.id,
        host=row.host,
        binary=row.binary,
        topic=row.topic,
        report_interval=row.report_interval,
        created_at=row.created_at,
        last_heartbeat=row.updated_at,
    )


def _to_lease(row: Row[Any]) -> StackLease:
    return StackLease(row.stack_id, row.engine_id, row.epoch, row.acquired_at, row.expires_at)


def _held_elsewhere(lease: StackLease, engine_id: str, now: datetime.datetime) -> LeaseConflict:
    state = "held" if lease.expires_at > now else "expired but still recorded"
    return LeaseConflict(
        f"stack {lease.stack_id}: lease {state} by engine {lease.engine_id} until "
        f"{lease.expires_at.isoformat()}, not by {engine_id}",
        stack=lease.stack_id,
    )


class SqlEngines(SqlBase, EngineStore):
    """Engines and leases in SQL."""

    def register_engine(
        self, engine_id: str, host: str, binary: str, topic: str, report_interval: int
    ) -> EngineRecord:
        now = self._clock()
        row: dict[str, Any] = {"id": engine_id, "host": host, "binary": binary, "topic": topic}
        row.update(report_interval=report_interval, created_at=now, updated_at=now)

        def work(conn: Connection) -> None:
            conn.execute(delete(ENGINE_SERVICE).where(ENGINE_SERVICE.c.id == engine_id))
            conn.execute(insert(ENGINE_SERVICE).values(**row))

        self._db.write(work)
        return EngineRecord(engine_id, host, binary, topic, report_interval, now, now)

    def heartbeat(self, engine_id: str) -> None:
        stmt = (
            update(ENGINE_SERVICE)
            .where(ENGINE_SERVICE.c.id == engine_id)
            .values(updated_at=self._clock())
        )
        if self._db.write(lambda conn: conn.execute(stmt).rowcount) != 1:
            raise NotFound(f"engine {engine_id} is not registered")

    def list_engines(self) -> list[EngineRecord]:
        stmt = select(ENGINE_SERVICE).order_by(ENGINE_SERVICE.c.created_at, ENGINE_SERVICE.c.id)
        return [_to_engine(r) for r in self._db.read(lambda conn: conn.execute(stmt).all())]

    def deregister_engine(self, engine_id: str) -> None:
        stmt = delete(ENGINE_SERVICE).where(ENGINE_SERVICE.c.id == engine_id)
        self._db.write(lambda conn: conn.execute(stmt))

    def acquire_lease(self, stack_id: str, engine_id: str, seconds: float) -> StackLease:
        return self._claim(stack_id, engine_id, seconds, take_expired=False)

    def take_over_lease(self, stack_id: str, engine_id: str, seconds: float) -> StackLease:
        return self._claim(stack_id, engine_id, seconds, take_expired=True)

    def renew_lease(self, stack_id: str, engine_id: str, seconds: float) -> StackLease:
        now = self._clock()
        expires = now + _duration(seconds)

        def work(conn: Connection) -> StackLease:
            lease = _current(conn, stack_id)
            if lease is None or lease.engine_id != engine_id:
                raise _lost(stack_id, engine_id, lease, now)
            return _extend(conn, lease, expires)

        return self._db.write(work)

    def release_lease(self, stack_id: str, engine_id: str) -> None:
        params = {
            "engine_id": _RELEASED,
            "expires_at": self._clock(),
            "b_stack": stack_id,
            "b_engine": engine_id,
        }
        self._db.write(lambda conn: conn.execute(_RELEASE, params))

    def get_lease(self, stack_id: str) -> StackLease | None:
        lease = self._db.read(lambda conn: _current(conn, stack_id))
        return None if lease is None or lease.engine_id == _RELEASED else lease

    def list_expired_leases(self) -> list[StackLease]:
        stmt = _LEASE.where(
            STACK_LEASE.c.expires_at <= self._clock(), STACK_LEASE.c.engine_id != _RELEASED
        ).order_by(STACK_LEASE.c.expires_at)
        return [_to_lease(r) for r in self._db.read(lambda conn: conn.execute(stmt).all())]

    def _claim(
        self, stack_id: str, engine_id: str, seconds: float, *, take_expired: bool
    ) -> StackLease:
        now = self._clock()
        expires = now + _duration(seconds)

        def work(conn: Connection) -> StackLease:
            lease = _current(conn, stack_id)
            if lease is None:
                return _insert_lease(conn, stack_id, engine_id, now, expires)
            if lease.engine_id == engine_id:
                return _extend(conn, lease, expires)
            free = lease.engine_id == _RELEASED or (take_expired and lease.expires_at <= now)
            if not free:
                raise _held_elsewhere(lease, engine_id, now)
            return _hand_over(conn, lease, engine_id, now, expires)

        try:
            return self._db.write(work)
        except sa_exc.IntegrityError as error:
            if dberrors.is_unique_violation(error):
                raise LeaseConflict(
                    f"stack {stack_id}: another engine took the lease first", stack=stack_id
                ) from None
            if dberrors.is_foreign_key_violation(error):
                raise StackNotFound(f"stack {stack_id} not found", stack=stack_id) from None
            raise


def _duration(seconds: float) -> datetime.timedelta:
    if seconds <= 0:
        raise InvalidInput(f"a lease must last a positive time, not {seconds} s")
    return datetime.timedelta(seconds=seconds)


def _current(conn: Connection, stack_id: str) -> StackLease | None:
    row = conn.execute(_LEASE_OF, {"b_stack": stack_id}).one_or_none()
    return None if row is None else _to_lease(row)


def _lost(
    stack_id: str, engine_id: str, lease: StackLease | None, now: datetime.datetime
) -> LeaseConflict:
    if lease is None or lease.engine_id == _RELEASED:
        return LeaseConflict(
            f"stack {stack_id}: engine {engine_id} holds no lease", stack=stack_id
        )
    return _held_elsewhere(lease, engine_id, now)


def _insert_lease(
    conn: Connection,
    stack_id: str,
    engine_id: str,
    now: datetime.datetime,
    expires: datetime.datetime,
) -> StackLease:
    lease = StackLease(stack_id, engine_id, 1, now, expires)
    conn.execute(_INSERT_LEASE, {f: getattr(lease, f) for f in StackLease.__slots__})
    return lease


def insert_new_lease(
    conn: Connection, stack_id: str, new: NewLease, now: datetime.datetime
) -> StackLease:
    """The first lease of a stack inserted in the same transaction (``conn``)."""
    return _insert_lease(conn, stack_id, new.engine_id, now, now + _duration(new.seconds))


def _cas(conn: Connection, seen: StackLease, **values: Any) -> None:
    """Update the lease row only if nobody changed it since ``seen`` was read."""
    params = {**values, "b_stack": seen.stack_id, "b_engine": seen.engine_id}
    params["b_epoch"] = seen.epoch
    if conn.execute(_LEASE_CAS, params).rowcount != 1:
        raise LeaseConflict(
            f"stack {seen.stack_id}: the lease changed hands meanwhile", stack=seen.stack_id
        )


def _extend(conn: Connection, lease: StackLease, expires: datetime.datetime) -> StackLease:
    _cas(conn, lease, expires_at=expires)
    return StackLease(lease.stack_id, lease.engine_id, lease.epoch, lease.acquired_at, expires)


def _hand_over(
    conn: Connection,
    lease: StackLease,
    engine_id: str,
    now: datetime.datetime,
    expires: datetime.datetime,
) -> StackLease:
    epoch = lease.epoch + 1
    _cas(conn, lease, engine_id=engine_id, epoch=epoch, acquired_at=now, expires_at=expires)
    return StackLease(lease.stack_id, engine_id, epoch, now, expires)
