"""The hot path's datetime binding agrees with SQLAlchemy's, which it replaces on SQLite; its
PostgreSQL plans are written in the server's own placeholders."""

from __future__ import annotations

import datetime

import psycopg
import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, bindparam, literal_column
from sqlalchemy import update as update_of
from sqlalchemy.dialects import sqlite
from sqlalchemy.dialects.postgresql.psycopg import PGDialect_psycopg

from thermik.persistence.sql.hot import HotStatement, utc_text
from thermik.persistence.sqltypes import UTCDateTime

ZONES = [
    datetime.UTC,
    datetime.timezone(datetime.timedelta(hours=5, minutes=30)),
    datetime.timezone(-datetime.timedelta(hours=11)),
]
MOMENTS = [
    datetime.datetime(2026, 11, 30, 6, 56, 20, 123456),
    datetime.datetime(2026, 1, 1, 0, 0, 0, 0),
    datetime.datetime(1999, 12, 31, 23, 59, 59, 999999),
    datetime.datetime(1001, 3, 4, 5, 6, 7, 8),
]


@pytest.mark.parametrize("zone", ZONES)
@pytest.mark.parametrize("moment", MOMENTS)
def test_utc_text_is_what_sqlalchemy_binds(
    moment: datetime.datetime, zone: datetime.tzinfo
) -> None:
    dialect = sqlite.dialect()
    generic = UTCDateTime().dialect_impl(dialect).bind_processor(dialect)
    assert generic is not None
    value = moment.replace(tzinfo=zone)
    assert utc_text(value) == generic(value)


def test_utc_text_refuses_naive_datetimes_and_keeps_none() -> None:
    with pytest.raises(ValueError, match="naive datetime"):
        utc_text(datetime.datetime(2026, 1, 1))
    assert utc_text(None) is None


def test_psycopg_plans_use_the_servers_placeholders_once_per_name() -> None:
    table = Table("t", MetaData(), Column("id", Integer, primary_key=True), Column("s", String))
    statement = (
        update_of(table)
        .values(s=bindparam("value"))
        .where(table.c.id == bindparam("key"))
        .where(table.c.s != literal_column("'100%'"))
        .where(table.c.id >= bindparam("key"))
    )
    hot = HotStatement(statement, explicit=True)
    plan = hot._plan(PGDialect_psycopg(dbapi=psycopg), ("value", "key"), False)
    assert plan.cursor_class is psycopg.RawCursor
    assert "%(" not in plan.sql
    assert "'100%'" in plan.sql
    assert plan.sql.count("$1") == 1
    assert plan.sql.count("$2") == 2
    assert "$3" not in plan.sql
    assert plan.bind({"key": 7, "value": "v"}) == ["v", 7]
