"""How join records and traversal descriptors are written to the store, and read back.

A join record (``PersistNodeResult``) is one appended row: the graph node, the node that ran
(they differ for a replacement), and the node data as JSON. ``ResumeTraversal`` is rebuilt from
these rows after a restart, so decoding must give back exactly what was encoded.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from thermik.engine.graph import Node
from thermik.engine.messages import AttributeKey, NodeData, PersistNodeResult
from thermik.engine.states import Action, State
from thermik.persistence.resource_values import JoinArrival

_UPDATE = "update"
_CLEANUP = "cleanup"


def node_key(node: Node) -> str:
    """``"12:update"`` or ``"12:cleanup"``."""
    return f"{node.version_id}:{_UPDATE if node.is_update else _CLEANUP}"


def parse_node(key: str) -> Node:
    """The node of a :func:`node_key`."""
    version, kind = key.split(":", 1)
    return Node(int(version), kind == _UPDATE)


#: ``json.dumps(value, default=str)`` without building an encoder per call.
_ENCODE = json.JSONEncoder(default=str).encode
#: Values JSON gives back as they are.
_PLAIN = frozenset({str, int, bool, type(None)})


def jsonable(value: Any) -> Any:
    """``value`` as JSON would give it back (anything JSON cannot hold becomes text)."""
    if type(value) in _PLAIN:
        return value
    return json.loads(_ENCODE(value))


def _encode_key(key: AttributeKey) -> Any:
    return key if isinstance(key, str) else list(key)


def _decode_key(key: Any) -> AttributeKey:
    return key if isinstance(key, str) else tuple(key)


def encode_node_data(data: NodeData | None) -> dict[str, Any] | None:
    """Node data as a JSON document."""
    if data is None:
        return None
    return {
        "id": data.version_id,
        "name": data.name,
        "reference_id": data.reference_id,
        "attrs": [[_encode_key(k), v] for k, v in data.attributes.items()],
        "state": str(data.state),
    }


def decode_node_data(document: Mapping[str, Any] | None) -> NodeData | None:
    """The node data of an :func:`encode_node_data` document."""
    if document is None:
        return None
    return NodeData(
        version_id=int(document["id"]),
        name=document["name"],
        reference_id=document["reference_id"],
        attributes={_decode_key(k): v for k, v in document["attrs"]},
        state=State.parse(document["state"]),
    )


def arrival(command: PersistNodeResult) -> JoinArrival:
    """The join row of a ``PersistNodeResult``."""
    return JoinArrival(
        command.traversal_id,
        node_key(command.node),
        node_key(command.sender),
        encode_node_data(command.node_data),
    )


def completed(arrivals: list[JoinArrival]) -> dict[Node, NodeData | None]:
    """The recorded node results of a traversal, by graph node (last record wins)."""
    return {parse_node(a.node): decode_node_data(a.payload) for a in arrivals}


@dataclasses.dataclass(frozen=True, slots=True)
class TraversalRecord:
    """What a traversal was asked to do, stored with the stack so another engine can resume it.

    Kept in the stack's ``current_deps`` column (Heat keeps the graph's edges there; the graph
    here is rebuilt from the rows, so only the request is needed).
    """

    operation: Action
    previous_template_id: int | None
    snapshot_id: str | None = None
    adopt_data: Mapping[str, Any] | None = None
    timeout_seconds: float | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON document stored."""
        return {
            "operation": self.operation.value,
            "previous_template_id": self.previous_template_id,
            "snapshot_id": self.snapshot_id,
            "adopt_data": self.adopt_data,
            "timeout_seconds": self.timeout_seconds,
        }

    @classmethod
    def from_json(cls, document: Any, fallback: Action) -> TraversalRecord:
        """The record stored in ``document``; ``fallback`` when nothing usable was stored."""
        if not isinstance(document, Mapping) or "operation" not in document:
            return cls(fallback, None)
        return cls(
            Action(document["operation"]),
            document.get("previous_template_id"),
            document.get("snapshot_id"),
            document.get("adopt_data"),
            document.get("timeout_seconds"),
        )
