"""The Store's batch writes the actor runtime uses: several rows, one transaction, all or none."""

from __future__ import annotations

import pytest

from tests.contract.test_store import make_stack, new_resource
from thermik.errors import StackNotFound
from thermik.persistence.resource_values import JoinArrival, NewResource
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
