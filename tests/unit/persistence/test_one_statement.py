"""PostgreSQL's one-statement record: every part of a guarded write is one clause of the
UPDATE, each writes only if the guard found the row, and each part's parameters are the
statement's, none missing and none left over."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.dialects import postgresql

from thermik.persistence.sql import one_statement, resources
from thermik.persistence.sql.one_statement import Record

DIALECT = postgresql.psycopg.dialect()  # type: ignore[attr-defined]
UPDATE = {
    "action": "CREATE",
    "status": "COMPLETE",
    "engine_id": None,
    "atomic_key": 1,
    "updated_at": None,
    "b_id": 7,
    "b_key": 0,
}
BLOB = {"data": "sealed", "encrypted": True, "created_at": None}
EVENT = {"uuid": "u", "stack_id": "s", "resource_name": "r", "created_at": None}
UPSERT = {"resource_id": 7, "key": "k", "value": "v", "redact": False, "decrypt_method": None}
DELETE = {"b_resource": 7, "b_key": "gone"}
ARRIVAL = {
    "b_id": 7,
    "a_traversal_id": "t",
    "a_node": "7:update",
    "a_sender": "7:update",
    "a_payload": None,
    "a_created_at": None,
}
RECORDS = {
    "a create": Record(
        {"properties_data_id": BLOB, "attr_data_id": BLOB}, [EVENT, EVENT], [UPSERT], ARRIVAL
    ),
    "data written and deleted": Record({}, [EVENT], [UPSERT, DELETE], None),
    "the row alone": Record({}, [], [], None),
    "attributes only": Record({"attr_data_id": BLOB}, [EVENT], [], ARRIVAL),
}


def sql_and_names(
    record: Record, params: dict[str, Any], *, fresh: bool = True
) -> tuple[str, set[str]]:
    statement = resources._ONE_STATEMENT[resources._UNLOCKED].statement(
        params, record, fresh=fresh
    )
    flat = record.parameters(params)
    plan = statement._plan(DIALECT, tuple(flat), False)
    return plan.sql, set(plan.names)


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_each_part_is_a_clause_and_every_parameter_is_bound(name: str) -> None:
    record = RECORDS[name]
    sql, names = sql_and_names(record, UPDATE)
    assert names == set(record.parameters(UPDATE))
    assert sql.count("UPDATE resource SET") == 1
    assert sql.count("INSERT INTO resource_properties_data") == len(record.blobs)
    assert sql.count("INSERT INTO event") == (1 if record.events else 0)
    assert sql.count("INTO join_arrival") == (1 if record.arrival else 0)
    writes = sql.count("(INSERT INTO resource_data ") + sql.count("(DELETE FROM resource_data ")
    assert writes == len(record.data)


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_every_part_and_the_update_write_only_if_the_guard_found_the_row(name: str) -> None:
    record = RECORDS[name]
    sql, _ = sql_and_names(record, UPDATE)
    # (each event is a row of the events' one INSERT, each row asking)
    parts = len(record.blobs) + len(record.events) + len(record.data) + bool(record.arrival)
    if not parts:
        assert "guard" not in sql
        return
    assert sql.startswith("WITH guard AS")
    assert sql.count("FOR UPDATE") == 1
    # Each part, and the UPDATE itself, so that the lock is taken before the row changes.
    assert sql.count("EXISTS (SELECT guard.id") == parts + 1


def test_the_row_points_at_the_blobs_the_statement_inserts() -> None:
    sql, _ = sql_and_names(RECORDS["a create"], UPDATE)
    assert "properties_data_id=(SELECT p_blob.id" in sql
    assert "attr_data_id=(SELECT t_blob.id" in sql


def test_a_shape_is_built_once() -> None:
    built = resources._ONE_STATEMENT[resources._UNLOCKED]
    record = RECORDS["a create"]
    other = Record(record.blobs, record.events, record.data, {**ARRIVAL, "b_id": 8})
    first = built.statement(UPDATE, record, fresh=True)
    assert built.statement({**UPDATE, "b_id": 8}, other, fresh=True) is first
    assert built.statement(UPDATE, record, fresh=False) is not first


def test_only_an_update_has_a_one_statement_form() -> None:
    with pytest.raises(TypeError, match="UPDATE"):
        one_statement.OneStatement(resources._INSERT_BLOB)


def test_a_later_version_rewrites_its_blobs_or_inserts_those_it_lacks() -> None:
    record = RECORDS["a create"]
    sql, names = sql_and_names(record, UPDATE, fresh=False)
    assert names == set(record.parameters(UPDATE))
    assert sql.count("UPDATE resource_properties_data SET") == 2
    assert sql.count("INSERT INTO resource_properties_data") == 2
    assert "AND NOT (EXISTS (SELECT p_old.id" in sql
    assert "properties_data_id=coalesce((SELECT p_old.id" in sql
