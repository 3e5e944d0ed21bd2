"""Join records and traversal records survive the trip through the store's JSON."""

from __future__ import annotations

import json

from thermik.actors import codec
from thermik.engine.graph import Node
from thermik.engine.messages import NodeData, PersistNodeResult
from thermik.engine.states import Action, State, Status


def test_node_keys_round_trip() -> None:
    for node in (Node(12, True), Node(3, False)):
        assert codec.parse_node(codec.node_key(node)) == node
    assert codec.node_key(Node(12, True)) == "12:update"


def test_node_data_round_trips_through_json() -> None:
    data = NodeData(
        5,
        "web",
        "phys-5",
        {"ip": "10.0.0.1", ("networks", "net0", 0): "x", "nested": {"a": [1, 2]}},
        State(Action.CREATE, Status.COMPLETE),
    )
    document = json.loads(json.dumps(codec.encode_node_data(data)))
    assert codec.decode_node_data(document) == data
    assert codec.encode_node_data(None) is None
    assert codec.decode_node_data(None) is None


def test_join_records_rebuild_the_completed_nodes() -> None:
    data = NodeData(7, "b", None, {}, State(Action.UPDATE, Status.COMPLETE))
    records = [
        codec.arrival(PersistNodeResult("T", Node(3, True), Node(7, True), data)),
        codec.arrival(PersistNodeResult("T", Node(2, False), Node(2, False), None)),
    ]
    assert records[0].node == "3:update"
    assert records[0].sender == "7:update"
    assert codec.completed(records) == {Node(3, True): data, Node(2, False): None}


def test_traversal_records_round_trip_and_fall_back() -> None:
    record = codec.TraversalRecord(Action.ABANDON, 4, "snap", {"resources": {}}, 2.5)
    assert codec.TraversalRecord.from_json(record.to_json(), Action.DELETE) == record
    assert codec.TraversalRecord.from_json(None, Action.DELETE) == codec.TraversalRecord(
        Action.DELETE, None
    )


def test_values_become_what_json_gives_back() -> None:
    assert codec.jsonable({"a": (1, 2), "b": {3}}) == {"a": [1, 2], "b": "{3}"}
