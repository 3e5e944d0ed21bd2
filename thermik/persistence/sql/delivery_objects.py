"""The builtin delivery's documents and signals, one row per capability URL path."""

from __future__ import annotations

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy import exc as sa_exc

from thermik.persistence import dberrors
from thermik.persistence.software_values import DeliveryObject
from thermik.persistence.sql.base import SqlBase, check_length
from thermik.persistence.sql.tables import DELIVERY_OBJECT

_COLUMNS = select(DELIVERY_OBJECT.c.body, DELIVERY_OBJECT.c.sealed, DELIVERY_OBJECT.c.generation)


class SqlDeliveryObjects(SqlBase):
    """See :meth:`~thermik.persistence.store.SoftwareStore.put_delivery_object`."""

    def put_delivery_object(self, key: str, body: bytes) -> int:
        check_length("key", key, 255)
        sealed = self._secrets.sealing
        stored = self._secrets.seal_bytes(body) if sealed else body
        now = self._clock()
        where = DELIVERY_OBJECT.c.key == key
        bump = (
            update(DELIVERY_OBJECT)
            .where(where)
            .values(
                body=stored,
                sealed=sealed,
                generation=DELIVERY_OBJECT.c.generation + 1,
                updated_at=now,
            )
        )
        first = {"key": key, "body": stored, "sealed": sealed, "generation": 1, "updated_at": now}

        def work(conn: Connection) -> int:
            # An update first (every write but the first), an insert when there is no row;
            # the insert losing to a concurrent first write falls back to the update.
            for _ in range(2):
                if conn.execute(bump).rowcount == 1:
                    return int(
                        conn.execute(
                            select(DELIVERY_OBJECT.c.generation).where(where)
                        ).scalar_one()
                    )
                if _insert_first(conn, first):
                    return 1
            raise AssertionError(f"delivery object {key}: neither updated nor inserted")

        return self._db.write(work)

    def get_delivery_object(self, key: str) -> DeliveryObject | None:
        stmt = _COLUMNS.where(DELIVERY_OBJECT.c.key == key)
        row = self._db.read(lambda conn: conn.execute(stmt).one_or_none())
        if row is None:
            return None
        body = (
            self._secrets.unseal_bytes(row.body, "delivery_object", key)
            if row.sealed
            else row.body
        )
        return DeliveryObject(bytes(body), int(row.generation))

    def delete_delivery_object(self, key: str) -> None:
        stmt = delete(DELIVERY_OBJECT).where(DELIVERY_OBJECT.c.key == key)
        self._db.write(lambda conn: conn.execute(stmt))


def _insert_first(conn: Connection, row: dict[str, object]) -> bool:
    """Insert the key's first write; ``False`` if another writer inserted it first."""
    try:
        with conn.begin_nested():
            conn.execute(insert(DELIVERY_OBJECT).values(**row))
    except sa_exc.IntegrityError as error:
        if not dberrors.is_unique_violation(error):
            raise
        return False
    return True
