"""``Store.record_action``: a whole resource action (a store-only plugin's, run before its row
was locked) recorded in one transaction, or not at all."""

from __future__ import annotations

import pytest

from tests.contract.test_store import make_stack, new_resource, raw_text
from thermik.errors import LockConflict
from thermik.persistence.resource_values import (
    DataWrite,
    EventQuery,
    JoinArrival,
    NewEvent,
    Resource,
    ResourceChanges,
)
from thermik.persistence.sql.store import SqlStore

DONE = ResourceChanges(
    action="CREATE", status="COMPLETE", status_reason="state changed", physical_resource_id="p1"
)


def _events(resource: Resource) -> tuple[NewEvent, NewEvent]:
    started = NewEvent(resource.stack_id, resource.name, "CREATE", "IN_PROGRESS", "state changed")
    ended = NewEvent(
        resource.stack_id, resource.name, "CREATE", "COMPLETE", "state changed", "", "p1"
    )
    return started, ended


def _stored_events(store: SqlStore, resource: Resource) -> list[tuple[str, str, str | None]]:
    return [
        (e.resource_action, e.resource_status, e.physical_resource_id)
        for e in store.list_events(EventQuery(resource.stack_id))
    ]


def test_an_action_is_recorded_in_one_write_with_both_events(store: SqlStore) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack))
    store.set_resource_data(resource.id, "gone", "x")
    arrival = JoinArrival("T1", "1:update", "1:update", {"id": 1})
    key = store.record_action(
        resource.id,
        resource.atomic_key,
        DONE,
        events=_events(resource),
        data=[
            DataWrite("value", "v"),
            DataWrite("secret", "s", redact=True),
            DataWrite("gone", None),
        ],
        properties={"value": "v"},
        attributes={"output": "v"},
        arrival=arrival,
    )
    row = store.get_resource(resource.id)
    assert (row.action, row.status, row.physical_resource_id) == ("CREATE", "COMPLETE", "p1")
    assert (row.engine_id, row.atomic_key) == (None, key)
    assert key == resource.atomic_key + 1
    assert _stored_events(store, resource) == [
        ("CREATE", "IN_PROGRESS", None),
        ("CREATE", "COMPLETE", "p1"),
    ]
    assert store.get_resource_data(resource.id) == {"value": "v", "secret": "s"}
    assert store.redacted_resource_data_keys(resource.id) == {"secret"}
    assert store.get_resource_properties(resource.id) == {"value": "v"}
    assert store.get_resource_attributes(resource.id) == {"output": "v"}
    assert store.list_traversal_arrivals("T1") == [arrival]


def test_data_already_stored_is_replaced(store: SqlStore) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack))
    store.set_resource_data(resource.id, "value", "old", redact=True)
    store.record_action(
        resource.id, 0, DONE, events=_events(resource), data=[DataWrite("value", "new")]
    )
    assert store.get_resource_data(resource.id) == {"value": "new"}
    assert store.redacted_resource_data_keys(resource.id) == frozenset()


@pytest.mark.parametrize("moved", ["changed", "locked"])
def test_a_row_that_moved_on_records_nothing(store: SqlStore, moved: str) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack))
    if moved == "changed":
        key = store.update_resource(resource.id, 0, ResourceChanges(status_reason="other"))
    else:
        key = store.lock_resource(resource.id, "e2", 0)
    with pytest.raises(LockConflict):
        store.record_action(
            resource.id,
            0,
            DONE,
            events=_events(resource),
            data=[DataWrite("value", "v")],
            properties={"value": "v"},
            arrival=JoinArrival("T1", "1:update", "1:update", None),
        )
    row = store.get_resource(resource.id)
    assert (row.action, row.atomic_key) == ("INIT", key)
    assert _stored_events(store, resource) == []
    assert store.get_resource_data(resource.id) == {}
    assert store.get_resource_properties(resource.id) is None
    assert store.list_traversal_arrivals("T1") == []
    assert _blobs(store) == 0


def _blobs(store: SqlStore) -> int:
    return int(raw_text(store, "SELECT COUNT(*) FROM resource_properties_data"))


def _record_blobs(store: SqlStore, resource: Resource, key: int, value: str) -> int:
    """Record an action at ``key`` storing properties and attributes made of ``value``."""
    return store.record_action(
        resource.id,
        key,
        DONE,
        events=_events(resource),
        properties={"value": value},
        attributes={"output": value},
    )


def test_a_new_version_gets_its_blobs_and_a_recorded_one_rewrites_them(store: SqlStore) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack))
    key = _record_blobs(store, resource, resource.atomic_key, "one")
    assert _blobs(store) == 2
    _record_blobs(store, resource, key, "two")
    assert store.get_resource_properties(resource.id) == {"value": "two"}
    assert store.get_resource_attributes(resource.id) == {"output": "two"}
    assert _blobs(store) == 2


def test_blobs_stored_on_their_own_move_the_key_on_and_are_rewritten(store: SqlStore) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack))
    store.store_resource_properties(resource.id, {"value": "stored"})
    store.store_resource_attributes(resource.id, {"output": "stored"})
    key = store.get_resource(resource.id).atomic_key
    assert key == resource.atomic_key + 2
    with pytest.raises(LockConflict):
        store.record_action(resource.id, resource.atomic_key, DONE, events=_events(resource))
    _record_blobs(store, resource, key, "recorded")
    assert store.get_resource_properties(resource.id) == {"value": "recorded"}
    assert store.get_resource_attributes(resource.id) == {"output": "recorded"}
    assert _blobs(store) == 2


def test_a_later_version_without_blobs_gets_new_ones(store: SqlStore) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack))
    key = store.update_resource(resource.id, 0, ResourceChanges(status_reason="moved on"))
    _record_blobs(store, resource, key, "first")
    assert store.get_resource_properties(resource.id) == {"value": "first"}
    assert store.get_resource_attributes(resource.id) == {"output": "first"}
    assert _blobs(store) == 2


def test_a_key_written_twice_by_one_action_keeps_the_last_value(store: SqlStore) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack))
    store.record_action(
        resource.id,
        0,
        DONE,
        events=_events(resource),
        data=[
            DataWrite("value", "first"),
            DataWrite("gone", "x"),
            DataWrite("value", "last"),
            DataWrite("gone", None),
        ],
    )
    assert store.get_resource_data(resource.id) == {"value": "last"}
