"""Snapshots and stored user credentials."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, Row, delete, insert, select, update

from thermik.errors import NotFound, StackNotFound
from thermik.persistence import crypto
from thermik.persistence.software_values import Snapshot
from thermik.persistence.sql.base import SqlBase, check_length, new_id, reason
from thermik.persistence.sql.tables import SNAPSHOT, STACK, USER_CREDS
from thermik.persistence.store import SnapshotStore
from thermik.persistence.values import JSON, KEEP, Keep, UserCreds

_PLAIN_CREDS = ("username", "trustor_user_id", "tenant", "tenant_id", "auth_url", "region_name")


#: The key of stored snapshot data listing the paths of the values stored encrypted.
SEALED_KEY = "encrypted"
#: The columns of a snapshot row.
_COLUMNS = tuple(field for field in Snapshot.__slots__ if field != "secrets")


def _parent(document: dict[str, Any], path: Sequence[str]) -> dict[str, Any] | None:
    """The mapping that holds the value at ``path`` in ``document``, with the mappings on the
    way copied so that the caller may change it; ``None`` if there is no such value."""
    node = document
    for key in path[:-1]:
        child = node.get(key)
        if not isinstance(child, Mapping):
            return None
        copied = dict(child)
        node[key] = copied
        node = copied
    return node if path and path[-1] in node else None


def _snapshot_missing(snapshot_id: str) -> NotFound:
    return NotFound(f"snapshot {snapshot_id} not found")


class SqlSnapshots(SqlBase, SnapshotStore):
    """Snapshots and credentials in SQL."""

    def create_snapshot(
        self,
        stack_id: str,
        tenant: str,
        name: str | None,
        *,
        snapshot_id: str | None = None,
    ) -> Snapshot:
        check_length("name", name, 255)
        value = Snapshot(
            id=snapshot_id or str(uuid.uuid4()),
            stack_id=stack_id,
            name=name,
            tenant=tenant,
            data=None,
            action="CREATE",
            status="IN_PROGRESS",
            status_reason="",
            created_at=self._clock(),
            updated_at=None,
        )
        row = {field: getattr(value, field) for field in _COLUMNS}
        self._write_referring(
            lambda conn: conn.execute(insert(SNAPSHOT).values(**row)),
            lambda: StackNotFound(f"stack {stack_id} not found", stack=stack_id),
        )
        return value

    def get_snapshot(self, snapshot_id: str, *, tenant: str | None = None) -> Snapshot:
        row = self._fetch_by_id(SNAPSHOT, snapshot_id, tenant)
        if row is None:
            raise _snapshot_missing(snapshot_id)
        return self._to_snapshot(row)

    def list_snapshots(self, stack_id: str) -> list[Snapshot]:
        stmt = (
            select(SNAPSHOT)
            .where(SNAPSHOT.c.stack_id == stack_id)
            .order_by(SNAPSHOT.c.created_at, SNAPSHOT.c.id)
        )
        return [self._to_snapshot(r) for r in self._db.read(lambda conn: conn.execute(stmt).all())]

    def update_snapshot(
        self,
        snapshot_id: str,
        *,
        status: str | Keep = KEEP,
        status_reason: str | Keep = KEEP,
        data: Mapping[str, JSON] | Keep | None = KEEP,
        secrets: Iterable[Sequence[str]] = (),
    ) -> Snapshot:
        columns: dict[str, Any] = {"updated_at": self._clock()}
        if status is not KEEP:
            columns["status"] = status
        if status_reason is not KEEP:
            columns["status_reason"] = reason(status_reason)
        if data is not KEEP:
            # The whole document is sealed too when a key is configured: the resources' data
            # and properties in it may derive from the secrets.
            sealed = None if data is None else self._seal_snapshot(data, secrets)
            columns["data"] = self._secrets.seal(sealed)
        where = SNAPSHOT.c.id == snapshot_id

        def work(conn: Connection) -> Snapshot:
            if conn.execute(update(SNAPSHOT).where(where).values(**columns)).rowcount != 1:
                raise _snapshot_missing(snapshot_id)
            return self._to_snapshot(conn.execute(select(SNAPSHOT).where(where)).one())

        return self._db.write(work)

    def _seal_snapshot(self, data: Mapping[str, JSON], secrets: Iterable[Sequence[str]]) -> JSON:
        """``data`` with the values at the ``secrets`` paths encrypted, and those paths."""
        sealed: dict[str, Any] = dict(data)
        done: list[list[str]] = []
        for path in secrets:
            parent = _parent(sealed, path)
            if parent is not None:
                plain = json.dumps(parent[path[-1]])
                parent[path[-1]] = self._secrets.encrypt(plain, "snapshot", *path)
                done.append(list(path))
        if done:
            sealed[SEALED_KEY] = done
        return sealed

    def _to_snapshot(self, row: Row[Any]) -> Snapshot:
        data = self._secrets.unseal(row.data, "snapshot", row.id)
        secrets: tuple[tuple[str, ...], ...] = ()
        if isinstance(data, Mapping) and SEALED_KEY in data:
            data, secrets = self._unseal_snapshot(data)
        return Snapshot(
            id=row.id,
            stack_id=row.stack_id,
            name=row.name,
            tenant=row.tenant,
            data=data,
            action=row.action,
            status=row.status,
            status_reason=row.status_reason,
            created_at=row.created_at,
            updated_at=row.updated_at,
            secrets=secrets,
        )

    def _unseal_snapshot(
        self, sealed: Mapping[str, Any]
    ) -> tuple[dict[str, Any], tuple[tuple[str, ...], ...]]:
        data = {key: value for key, value in sealed.items() if key != SEALED_KEY}
        paths = tuple(tuple(path) for path in sealed[SEALED_KEY])
        for path in paths:
            parent = _parent(data, path)
            if parent is not None:
                token = parent[path[-1]]
                parent[path[-1]] = json.loads(self._secrets.decrypt(token, crypto.METHOD, *path))
        return data, paths

    def delete_snapshot(self, snapshot_id: str) -> None:
        stmt = delete(SNAPSHOT).where(SNAPSHOT.c.id == snapshot_id)
        self._db.write(lambda conn: conn.execute(stmt))

    def store_user_creds(self, creds: UserCreds) -> int:
        row: dict[str, Any] = {name: getattr(creds, name) for name in _PLAIN_CREDS}
        for name in ("password", "trust_id"):
            secret = getattr(creds, name)
            row[name] = (
                None if secret is None else self._secrets.encrypt(secret, "user_creds", name)
            )
        row.update(decrypt_method=crypto.METHOD, created_at=self._clock())
        stmt = insert(USER_CREDS).values(**row)
        return self._db.write(lambda conn: new_id(conn.execute(stmt)))

    def get_user_creds(self, creds_id: int) -> UserCreds:
        stmt = select(USER_CREDS).where(USER_CREDS.c.id == creds_id)
        row = self._db.read(lambda conn: conn.execute(stmt).one_or_none())
        if row is None:
            raise NotFound(f"user credentials {creds_id} not found")
        secrets = {
            name: None
            if getattr(row, name) is None
            else self._secrets.decrypt(getattr(row, name), row.decrypt_method, "user_creds", name)
            for name in ("password", "trust_id")
        }
        return UserCreds(id=row.id, **{n: getattr(row, n) for n in _PLAIN_CREDS}, **secrets)

    def delete_user_creds(self, creds_id: int) -> None:
        # A deleted stack's row stays (soft-deleted) and still points at its credentials.
        unlink = update(STACK).where(STACK.c.user_creds_id == creds_id).values(user_creds_id=None)
        stmt = delete(USER_CREDS).where(USER_CREDS.c.id == creds_id)

        def write(conn: Connection) -> None:
            conn.execute(unlink)
            conn.execute(stmt)

        self._db.write(write)
