"""Resolving a resource's properties from what its predecessors reported (the join's data).

An update node receives the node data of every resource it requires: their reference ids and
the attribute values other definitions reference. :class:`NodeResolution` answers the template
layer from that data, so converging a resource never loads its siblings; an attribute the join
did not carry (a name only known at run time) is read from the stored attribute values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from thermik.actors.stored import (
    StoredResolution,
    attribute_key,
    plain_attributes,
    select_stored,
)
from thermik.engine.messages import NodeData


class NodeResolution:
    """A :class:`~thermik.template.ResolutionContext` over one node's input data."""

    def __init__(self, inputs: Mapping[str, NodeData], stored: StoredResolution) -> None:
        self._inputs = inputs
        self._stored = stored

    def reference_id(self, name: str) -> str | None:
        data = self._inputs.get(name)
        if data is None:
            return self._stored.reference_id(name)
        return data.reference_id

    def attribute(self, name: str, attr: str, path: Sequence[str | int]) -> Any:
        data = self._inputs.get(name)
        if data is None:
            return self._stored.attribute(name, attr, path)
        carried = data.attributes
        if attr in carried or attribute_key(attr, path) in carried:
            return select_stored(carried, attr, path)
        return select_stored(self._stored.stored_values(data.version_id), attr, path)

    def all_attributes(self, name: str) -> Mapping[str, Any]:
        data = self._inputs.get(name)
        if data is None:
            return self._stored.all_attributes(name)
        return plain_attributes(self._stored.stored_values(data.version_id))

    def facade(self, key: str) -> Any:
        return self._stored.facade(key)

    def availability_zones(self) -> list[str]:
        return self._stored.availability_zones()
