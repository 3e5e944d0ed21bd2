"""The plugin context of the shell: resource data written through, read at most once."""

from __future__ import annotations

import random

from thermik.actors.context import StoreContext, StoredData
from thermik.persistence.resource_values import NewResource, ResourceChanges
from thermik.persistence.store import Store
from thermik.persistence.values import Stack
from thermik.resources.context import StackIdentity


def row_id(store: Store, stack: Stack, name: str = "a") -> int:
    new = NewResource(stack.id, stack.root_id, name, "OS::Heat::TestResource", None)
    return store.create_resource(new).id


def test_data_is_written_through_and_read_once(store: Store, stack: Stack) -> None:
    resource_id = row_id(store, stack)
    store.set_resource_data(resource_id, "old", "1")
    data = StoredData(store, resource_id)
    data.set("new", "2")
    assert store.get_resource_data(resource_id) == {"old": "1", "new": "2"}
    assert data.get("new") == "2"
    store.set_resource_data(resource_id, "old", "changed behind our back")
    assert data.get("old") == "changed behind our back"  # first read of a stored key
    store.set_resource_data(resource_id, "old", "again")
    assert data.get("old") == "changed behind our back"  # read once, then kept
    data.delete("old")
    assert data.as_dict() == {"new": "2"}
    assert store.get_resource_data(resource_id) == {"new": "2"}


def test_a_never_created_version_reads_nothing(store: Store, stack: Stack) -> None:
    resource_id = row_id(store, stack)
    store.set_resource_data(resource_id, "stale", "x")
    assert StoredData(store, resource_id, known_empty=True).as_dict() == {}


def test_peer_data_by_reference_id(store: Store, stack: Stack) -> None:
    handle = row_id(store, stack, "handle")
    store.update_resource(handle, 0, ResourceChanges(physical_resource_id="h-1"))
    store.set_resource_data(handle, "signal:1", "{}")
    ctx = StoreContext(
        store,
        StackIdentity(stack.id, stack.name, stack.tenant),
        row_id(store, stack, "wait"),
        "wait",
        "OS::Heat::WaitCondition",
        None,
        rng=random.Random(1),
    )
    assert ctx.peer_data("h-1") == {"signal:1": "{}"}
    assert ctx.peer_data("handle") == {"signal:1": "{}"}
    assert ctx.peer_data("nothing") is None
    ctx.set_physical_id("w-1")
    assert (ctx.physical_id, ctx.physical_id_changed) == ("w-1", True)
