"""The Store's writes on the engine's hot path: batches (several rows, one transaction, all or
none) and guarded writes that carry a resource's properties and attributes."""

from __future__ import annotations

import pytest

from tests.contract.test_store import make_stack, new_resource, raw_text
from thermik.errors import LockConflict, ResourceNotFound, StackNotFound
from thermik.persistence.resource_values import JoinArrival, NewResource, ResourceChanges
from thermik.persistence.sql.store import SqlStore


def test_create_resources_inserts_in_order_with_ids(store: SqlStore) -> None:
    stack = make_stack(store)
    created = store.create_resources([new_resource(stack, f"r{i}") for i in range(5)])
    assert [r.name for r in created] == [f"r{i}" for i in range(5)]
    assert [r.id for r in created] == sorted(r.id for r in created)
    assert store.list_resources(stack.id) == created


def test_create_resources_of_nothing_writes_nothing(store: SqlStore) -> None:
    assert store.create_resources([]) == []


def test_create_resources_is_all_or_none(store: SqlStore) -> None:
    stack = make_stack(store)
    stray = NewResource("missing", "missing", "x", "OS::Heat::None", stack.raw_template_id)
    with pytest.raises(StackNotFound):
        store.create_resources([new_resource(stack, "a"), stray])
    assert store.list_resources(stack.id) == []


def test_append_arrivals_keeps_order(store: SqlStore) -> None:
    stack = make_stack(store)
    arrivals = [JoinArrival("T1", f"{i}:update", f"{i}:update", {"id": i}) for i in range(4)]
    store.append_arrivals(stack.id, arrivals[:3])
    store.append_arrivals(stack.id, [])
    store.append_arrival(stack.id, arrivals[3])
    assert store.list_traversal_arrivals("T1") == arrivals


def test_append_arrivals_of_a_missing_stack(store: SqlStore) -> None:
    with pytest.raises(StackNotFound):
        store.append_arrivals("nope", [JoinArrival("T1", "n", "s", None)])


def test_guarded_writes_store_properties_and_attributes_with_the_state(store: SqlStore) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack))
    changes = ResourceChanges(action="CREATE", status="IN_PROGRESS")
    key = store.lock_resource(resource.id, "e1", 0, changes, properties={"size": 1})
    assert store.get_resource_properties(resource.id) == {"size": 1}
    assert store.get_resource_attributes(resource.id) is None
    done = ResourceChanges(status="COMPLETE")
    key = store.unlock_resource(
        resource.id, "e1", key, done, properties={"size": 2}, attributes={"ip": "10.0.0.1"}
    )
    assert store.get_resource_properties(resource.id) == {"size": 2}
    assert store.get_resource_attributes(resource.id) == {"ip": "10.0.0.1"}
    store.update_resource(resource.id, key, ResourceChanges(), attributes={"ip": "10.0.0.2"})
    assert store.get_resource_attributes(resource.id) == {"ip": "10.0.0.2"}
    assert raw_text(store, "SELECT count(*) FROM resource_properties_data") == "2"


def test_a_lost_lock_stores_no_blob(store: SqlStore) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack))
    with pytest.raises(LockConflict):
        store.lock_resource(resource.id, "e1", 7, properties={"size": 1})
    assert store.get_resource_properties(resource.id) is None
    assert raw_text(store, "SELECT count(*) FROM resource_properties_data") == "0"


def test_resource_data_is_inserted_then_replaced(store: SqlStore) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack))
    store.set_resource_data(resource.id, "k", "one")
    store.set_resource_data(resource.id, "k", "two")
    store.set_resource_data(resource.id, "secret", "pw", redact=True)
    assert store.get_resource_data(resource.id) == {"k": "two", "secret": "pw"}
    with pytest.raises(ResourceNotFound):
        store.set_resource_data(12345, "k", "v")


def test_list_resource_properties_of_a_stack(store: SqlStore) -> None:
    stack = make_stack(store)
    other = make_stack(store, "other")
    first, second, bare = store.create_resources([new_resource(stack, n) for n in "abc"])
    store.store_resource_properties(first.id, {"size": 1})
    store.store_resource_properties(second.id, {"secret": "pw"}, encrypt=True)
    store.store_resource_properties(store.create_resource(new_resource(other)).id, {"x": 0})
    assert store.list_resource_properties(stack.id) == {
        first.id: {"size": 1},
        second.id: {"secret": "pw"},
    }
    assert bare.id not in store.list_resource_properties(stack.id)
