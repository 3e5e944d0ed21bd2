"""The hot path's datetime binding agrees with SQLAlchemy's, which it replaces on SQLite."""

from __future__ import annotations

import datetime

import pytest
from sqlalchemy.dialects import sqlite

from thermik.persistence.sql.hot import utc_text
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
