"""The SQLAlchemy Store: the parts of the store mixed into one object over one database."""

from __future__ import annotations

from thermik.persistence.sql.delivery_objects import SqlDeliveryObjects
from thermik.persistence.sql.engines import SqlEngines
from thermik.persistence.sql.events import SqlEvents
from thermik.persistence.sql.resource_data import SqlResourceData
from thermik.persistence.sql.resources import SqlResources
from thermik.persistence.sql.snapshots import SqlSnapshots
from thermik.persistence.sql.software import SqlSoftware
from thermik.persistence.sql.stacks import SqlStacks
from thermik.persistence.sql.templates import SqlTemplates
from thermik.persistence.store import Store


class SqlStore(
    SqlTemplates,
    SqlStacks,
    SqlResources,
    SqlResourceData,
    SqlEvents,
    SqlSoftware,
    SqlDeliveryObjects,
    SqlSnapshots,
    SqlEngines,
    Store,
):
    """The Store on SQLite, PostgreSQL or MariaDB."""

    def close(self) -> None:
        self._db.dispose()
