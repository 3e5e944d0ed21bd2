"""Column types that behave the same on SQLite, PostgreSQL and MariaDB."""

from __future__ import annotations

import contextlib
import datetime
import json
import sys
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


#: One encoder for every document written: ``json.dumps`` with options builds one per call.
_ENCODE = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


class JsonText(TypeDecorator[Any]):
    """A JSON document kept as text, so every backend stores and returns it identically."""

    impl = LONG_TEXT
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        if value is None:
            return None
        return _ENCODE(value)

    def process_result_value(self, value: str | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if value == "{}":  # most rows' metadata: not worth a parse
            return {}
        if len(value) < _SHARED_FROM:
            return json.loads(value)
        sharing = _Sharing()
        return sharing.value(json.loads(value, object_pairs_hook=sharing.object))


#: Documents from this size on (templates, big dependency lists) share their short strings;
#: smaller ones are not worth the slower decoding (most rows read on the hot path).
_SHARED_FROM = 4096
#: Strings up to this length (names, types, short values) are shared between documents.
_SHARED_LENGTH = 64


class _Sharing:
    """The decoding of one big document: its short strings interned, and equal lists of them
    (layers of resources each depending on a whole previous layer) recognised at once.

    A template of 5,000 resources each depending on hundreds of others repeats the same names
    millions of times; decoded naively every occurrence is its own string object.
    """

    def __init__(self) -> None:
        self._lists: dict[tuple[Any, ...], list[Any]] = {}

    def object(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        return {sys.intern(key): self.value(item) for key, item in pairs}

    def value(self, value: Any) -> Any:
        if type(value) is str:
            return sys.intern(value) if len(value) <= _SHARED_LENGTH else value
        if type(value) is list:
            return self._list(value)
        return value

    def _list(self, value: list[Any]) -> list[Any]:
        try:
            key = tuple(value)
            seen = self._lists.get(key)
        except TypeError:  # holds lists or maps: not worth recognising
            return _shared_list(value)
        if seen is None:
            seen = self._lists[key] = _shared_list(value)
        # A list of its own (callers may change theirs), holding the shared strings.
        return seen[:]


def _shared_list(value: list[Any]) -> list[Any]:
    with contextlib.suppress(TypeError):  # not all strings: item by item
        # The common case (a list of names) at C speed.
        if value and max(map(len, value)) <= _SHARED_LENGTH:
            return list(map(sys.intern, value))
    return [sys.intern(v) if type(v) is str and len(v) <= _SHARED_LENGTH else v for v in value]
