"""Resolving references from stored attributes, and from a node's input data first."""

from __future__ import annotations

import dataclasses

import pytest

from thermik.actors.resolution import NodeResolution
from thermik.actors.stored import (
    REFERENCE_ID_KEY,
    StoredResolution,
    attribute_key,
    current_versions,
    split_attribute_key,
)
from thermik.engine.messages import NodeData
from thermik.engine.states import Action, State, Status
from thermik.errors import FunctionError
from thermik.persistence.resource_values import NewResource, Resource, ResourceChanges
from thermik.persistence.store import Store
from thermik.persistence.values import Stack


def version(store: Store, stack: Stack, name: str, **changes: object) -> Resource:
    row = store.create_resource(
        NewResource(stack.id, stack.root_id, name, "OS::Heat::TestResource", stack.raw_template_id)
    )
    if changes:
        store.update_resource(row.id, 0, ResourceChanges(**changes))  # type: ignore[arg-type]
    return store.get_resource(row.id)


def test_current_versions_prefer_the_healthy_and_live(store: Store, stack: Stack) -> None:
    old = version(store, stack, "a", action="CREATE", status="FAILED")
    new = version(store, stack, "a", action="CREATE", status="COMPLETE")
    gone = version(store, stack, "b", action="DELETE", status="COMPLETE")
    chosen = current_versions([old, new, gone], stack.raw_template_id)
    assert chosen == {"a": new}


def test_stored_resolution_reads_attributes_and_reference_ids(store: Store, stack: Stack) -> None:
    a = version(store, stack, "a", action="CREATE", status="COMPLETE", physical_resource_id="p-a")
    b = version(store, stack, "b", action="CREATE", status="COMPLETE", physical_resource_id="p-b")
    store.store_resource_attributes(
        a.id, {"net": {"ips": ["10.0.0.1"]}, REFERENCE_ID_KEY: "ref-a"}
    )
    resolution = StoredResolution(store, stack.id)
    assert resolution.reference_id("a") == "ref-a"
    assert resolution.reference_id("b") == "p-b"
    assert resolution.reference_id("missing") is None
    assert resolution.attribute("a", "net", ("ips", 0)) == "10.0.0.1"
    assert resolution.attribute("a", "net", ("nope",)) is None
    assert resolution.attribute("b", "anything", ()) is None
    assert resolution.all_attributes("a") == {"net": {"ips": ["10.0.0.1"]}}
    assert resolution.availability_zones() == ["nova"]
    with pytest.raises(FunctionError, match="only available inside a nested stack"):
        resolution.facade("metadata")
    assert b.id != a.id


def test_node_resolution_uses_the_join_data_then_the_store(store: Store, stack: Stack) -> None:
    a = version(store, stack, "a", action="CREATE", status="COMPLETE", physical_resource_id="p-a")
    store.store_resource_attributes(a.id, {"output": "stored", "other": "only stored"})
    data = NodeData(
        a.id, "a", "joined-ref", {"output": "joined"}, State(Action.CREATE, Status.COMPLETE)
    )
    resolution = NodeResolution({"a": data}, StoredResolution(store, stack.id))
    assert resolution.reference_id("a") == "joined-ref"
    assert resolution.attribute("a", "output", ()) == "joined"
    assert resolution.attribute("a", "other", ()) == "only stored"
    assert resolution.all_attributes("a") == {"output": "stored", "other": "only stored"}


def test_a_value_stored_for_a_path_wins_over_following_the_path(
    store: Store, stack: Stack
) -> None:
    a = version(store, stack, "g", action="CREATE", status="COMPLETE", physical_resource_id="g")
    per_member = {"0": "x0", "1": "x1"}
    stored = {"attributes": None, attribute_key("attributes", ("x",)): per_member}
    store.store_resource_attributes(a.id, stored)
    data = NodeData(a.id, "g", "g", dict(stored), State(Action.CREATE, Status.COMPLETE))
    for resolution in (
        StoredResolution(store, stack.id),
        NodeResolution({"g": data}, StoredResolution(store, stack.id)),
        NodeResolution(
            {"g": dataclasses.replace(data, attributes={})}, StoredResolution(store, stack.id)
        ),
    ):
        assert resolution.attribute("g", "attributes", ("x",)) == per_member
        assert resolution.attribute("g", "attributes", ("y",)) is None
        assert resolution.all_attributes("g") == {"attributes": None}
    assert split_attribute_key(attribute_key("attributes", ("x", 0))) == ("attributes", ("x", 0))
    assert split_attribute_key("refs") == ("refs", ())
