"""Column types that behave the same on SQLite, PostgreSQL and MariaDB."""

from __future__ import annotations

import datetime
import json
from typing import Any

from sqlalchemy import DateTime, Dialect, Text
from sqlalchemy.dialects import mysql
from sqlalchemy.types import TypeDecorator

#: MySQL's DATETIME drops fractions of a second unless asked; leases and paging need them.
DATETIME = DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
#: JSON documents are stored as text (LONGTEXT on MySQL, where TEXT stops at 64 KiB).
LONG_TEXT = Text().with_variant(mysql.LONGTEXT(), "mysql", "mariadb")


class UTCDateTime(TypeDecorator[datetime.datetime]):
    """An aware UTC datetime, stored naive (in UTC) because not every backend keeps zones."""

    impl = DATETIME
    cache_ok = True

    def process_bind_param(
        self, value: datetime.datetime | None, dialect: Dialect
    ) -> datetime.datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given; Thermik stores aware UTC datetimes")
        return value.astimezone(datetime.UTC).replace(tzinfo=None)

    def process_result_value(
        self, value: datetime.datetime | None, dialect: Dialect
    ) -> datetime.datetime | None:
        return None if value is None else value.replace(tzinfo=datetime.UTC)


class JsonText(TypeDecorator[Any]):
    """A JSON document kept as text, so every backend stores and returns it identically."""

    impl = LONG_TEXT
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        if value is None:
            return None
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    def process_result_value(self, value: str | None, dialect: Dialect) -> Any:
        return None if value is None else json.loads(value)
