"""What every part of the SQL store shares: the database, the secret box and the clock."""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from sqlalchemy import CursorResult, Row, Table, select
from sqlalchemy import exc as sa_exc

from thermik.errors import InvalidInput, NotFound
from thermik.persistence import dberrors
from thermik.persistence.crypto import SecretBox
from thermik.persistence.database import Database, Work
from thermik.persistence.resource_values import Event, NewEvent

T = TypeVar("T")

Clock = Callable[[], datetime.datetime]

#: Compact JSON text of a stored blob (one encoder: ``json.dumps`` with options makes one
#: per call).
COMPACT = json.JSONEncoder(separators=(",", ":")).encode

#: Status reasons are cut here: MySQL's TEXT holds 65535 bytes, 4 per character at worst.
MAX_REASON = 16000


def utc_now() -> datetime.datetime:
    """The default clock."""
    return datetime.datetime.now(datetime.UTC)


def reason(text: str) -> str:
    """A status reason that fits every backend."""
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 3] + "..."


def check_length(field: str, value: str | None, limit: int) -> None:
    """Reject over-long identifiers the same way on every backend (SQLite would keep them),
    and values that are not text at all (SQLite would keep those too)."""
    if value is not None and not isinstance(value, str):
        raise InvalidInput(f"must be a string, not {type(value).__name__}", path=(field,))
    if value is not None and len(value) > limit:
        raise InvalidInput(f"longer than {limit} characters", path=(field,))


def new_id(result: CursorResult[Any]) -> int:
    """The primary key an INSERT generated."""
    key = result.inserted_primary_key
    assert key is not None
    return int(key[0])


class SqlBase:
    """State shared by the store's parts (they are mixed into one ``SqlStore``)."""

    def __init__(self, db: Database, secrets: SecretBox, clock: Clock = utc_now) -> None:
        self._db = db
        self._secrets = secrets
        self._clock = clock
        self._event_watcher: Callable[[Event], None] | None = None

    def watch_events(self, watcher: Callable[[Event], None] | None) -> None:
        """See :meth:`~thermik.persistence.store.EventStore.watch_events`."""
        self._event_watcher = watcher

    def _announce(self, rows: Sequence[Mapping[str, Any]], news: Sequence[NewEvent]) -> None:
        """Tell the event watcher of the events ``rows`` recorded (``news`` gave them, their
        properties unsealed: no decryption on the write path)."""
        watcher = self._event_watcher
        if watcher is None:
            return
        for row, new in zip(rows, news, strict=True):
            watcher(
                Event(
                    id=row["uuid"],
                    stack_id=new.stack_id,
                    resource_name=new.resource_name,
                    resource_action=new.resource_action,
                    resource_status=new.resource_status,
                    resource_status_reason=row["resource_status_reason"],
                    resource_type=new.resource_type,
                    physical_resource_id=new.physical_resource_id,
                    resource_properties=new.resource_properties,
                    created_at=row["created_at"],
                )
            )

    def _fetch_by_id(self, table: Table, row_id: str, tenant: str | None) -> Row[Any] | None:
        """The row of ``table`` with ``row_id`` (in ``tenant`` when given), or ``None``."""
        stmt = select(table).where(table.c.id == row_id)
        if tenant is not None:
            stmt = stmt.where(table.c.tenant == tenant)
        return self._db.read(lambda conn: conn.execute(stmt).one_or_none())

    def _write_referring(
        self,
        work: Work[T],
        missing: Callable[[], NotFound],
        *,
        lazy: bool = False,
        whole: bool = False,
    ) -> T:
        """Run a write whose rows refer to others; a dangling reference raises ``missing()``.
        ``lazy``, ``whole``: see :meth:`Database.write`."""
        try:
            return self._db.write(work, lazy=lazy, whole=whole)
        except sa_exc.IntegrityError as error:
            if dberrors.is_foreign_key_violation(error):
                raise missing() from None
            raise
