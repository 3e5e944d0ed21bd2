"""MariaDB's compound record: every part of a guarded write is one statement of a
``BEGIN NOT ATOMIC`` block, those after the UPDATE only if it matched, and each part's
parameters are the block's, none missing and none left over."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.dialects import mysql, postgresql

from tests.unit.persistence.test_one_statement import RECORDS, UPDATE
from thermik.persistence.sql import compound, resources
from thermik.persistence.sql.one_statement import Record


def _mariadb() -> Any:
    dialect = mysql.pymysql.dialect(paramstyle="pyformat")  # type: ignore[attr-defined]
    dialect.is_mariadb = True
    dialect.server_version_info = (10, 11, 19)
    return dialect


def sql_and_names(record: Record, *, fresh: bool = True) -> tuple[str, set[str]]:
    built = resources._COMPOUND[resources._UNLOCKED]
    plan = built.plan(_mariadb(), UPDATE, record, fresh=fresh)
    return plan.sql, set(plan.names)


@pytest.mark.parametrize("fresh", [True, False])
@pytest.mark.parametrize("name", sorted(RECORDS))
def test_each_part_is_a_statement_of_the_block_with_its_parameters(name: str, fresh: bool) -> None:
    record = RECORDS[name]
    sql, names = sql_and_names(record, fresh=fresh)
    assert names == set(record.parameters(UPDATE))
    assert sql.startswith("BEGIN NOT ATOMIC\n")
    assert sql.endswith("\nSELECT thermik_matched;\nEND")
    assert sql.count("UPDATE resource SET") == 1
    assert sql.count("INSERT INTO resource_properties_data") == len(record.blobs)
    assert sql.count("UPDATE resource_properties_data") == (0 if fresh else len(record.blobs))
    assert sql.count("INSERT INTO event") == (1 if record.events else 0)
    assert sql.count("INTO join_arrival") == (1 if record.arrival else 0)
    writes = sql.count("INSERT INTO resource_data ") + sql.count("DELETE FROM resource_data ")
    assert writes == len(record.data)


def test_what_follows_the_update_runs_only_if_it_matched() -> None:
    sql, _ = sql_and_names(RECORDS["a create"])
    update = sql.index("UPDATE resource SET")
    guard = sql.index("IF thermik_matched = 1 THEN")
    assert update < sql.index("SET thermik_matched = ROW_COUNT();") < guard
    for part in ("INSERT INTO event", "INSERT INTO resource_data", "INTO join_arrival"):
        assert guard < sql.index(part) < sql.index("END IF;\nSELECT thermik_matched")


def test_the_row_points_at_the_blobs_the_block_inserts_or_rewrites() -> None:
    fresh, _ = sql_and_names(RECORDS["a create"])
    assert "SET thermik_p = LAST_INSERT_ID();" in fresh
    assert "properties_data_id=thermik_p, attr_data_id=thermik_t" in fresh
    later, _ = sql_and_names(RECORDS["a create"], fresh=False)
    assert "IF thermik_p IS NULL THEN INSERT INTO resource_properties_data" in later
    assert "WHERE resource_properties_data.id = thermik_p; END IF;" in later


def test_only_mariadb_runs_the_block() -> None:
    assert compound.supported(_mariadb())
    oracle = mysql.pymysql.dialect()  # type: ignore[attr-defined]
    assert not compound.supported(oracle)
    assert not compound.supported(postgresql.psycopg.dialect())  # type: ignore[attr-defined]


def test_only_an_update_has_a_compound_form() -> None:
    with pytest.raises(TypeError, match="UPDATE"):
        compound.Compound(resources._INSERT_BLOB)
