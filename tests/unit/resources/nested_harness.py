"""A small, real NestedStackServices in memory, and a context that offers it.

Child stacks are dicts; a test settles their operations by hand (:meth:`MemoryNested.settle`),
as the engine would when a child's traversal ends. A member's reference id is
``<stack id>/<name>`` and its attributes are its property values (``get_attr: [m, value]``
reads the member's ``value`` property), which is enough to check what a group reads.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from tests.unit.resources.harness import Context
from thermik.errors import InvalidInput, NotFound
from thermik.resources.context import ResourceContext
from thermik.resources.nested_services import (
    COMPLETE,
    IN_PROGRESS,
    NestedState,
    NestedTemplate,
)
from thermik.resources.plugin import select_path


@dataclasses.dataclass
class Child:
    """One child stack."""

    template: Mapping[str, Any]
    action: str
    status: str = IN_PROGRESS
    reason: str = ""


class MemoryNested:
    """Child stacks in a dict; every call that starts an operation is recorded."""

    def __init__(self) -> None:
        self.children: dict[str, Child] = {}
        self.calls: list[tuple[str, str]] = []
        #: Every read of members' references or attributes, as (method, stack id).
        self.reads: list[tuple[str, str]] = []
        #: What the parent's template says as its ``update_policy``.
        self.policy: dict[str, Any] = {}
        #: The parent stack's timeout, in seconds.
        self.timeout = 3600.0
        self._ids = itertools.count(1)

    def settle(self, stack_id: str, status: str = COMPLETE, reason: str = "") -> None:
        """End the child's running operation."""
        child = self.children[stack_id]
        child.status, child.reason = status, reason

    def members(self, stack_id: str) -> dict[str, Any]:
        """The child's resource definitions."""
        if stack_id not in self.children:
            raise NotFound(f"stack {stack_id} not found")
        return dict(self.children[stack_id].template["resources"])

    def _start(self, stack_id: str, action: str) -> None:
        child = self.children[stack_id]
        child.action, child.status, child.reason = action, IN_PROGRESS, ""
        self.calls.append((action, stack_id))

    def create(self, ctx: ResourceContext, nested: NestedTemplate) -> str:
        stack_id = f"child-{next(self._ids)}"
        self.children[stack_id] = Child(nested.template, "CREATE")
        self.calls.append(("CREATE", stack_id))
        return stack_id

    def update(self, ctx: ResourceContext, stack_id: str, nested: NestedTemplate) -> None:
        if stack_id not in self.children:
            raise NotFound(f"stack {stack_id} not found")
        self.children[stack_id].template = nested.template
        self._start(stack_id, "UPDATE")

    def delete(self, ctx: ResourceContext, stack_id: str) -> None:
        if stack_id in self.children:
            self._start(stack_id, "DELETE")

    def act(self, ctx: ResourceContext, stack_id: str, action: str) -> None:
        self._start(stack_id, action)

    def cancel(self, ctx: ResourceContext, stack_id: str) -> None:
        self.calls.append(("CANCEL", stack_id))

    def state(self, ctx: ResourceContext, stack_id: str) -> NestedState:
        child = self.children.get(stack_id)
        if child is None:
            raise NotFound(f"stack {stack_id} not found")
        return NestedState(stack_id, child.action, child.status, child.reason)

    def outputs(self, ctx: ResourceContext, stack_id: str) -> Mapping[str, Any]:
        return {}

    def output_error(self, ctx: ResourceContext, stack_id: str, name: str) -> str | None:
        return None

    def update_policy(self, ctx: ResourceContext) -> Mapping[str, Any]:
        return self.policy

    def stack_timeout(self, ctx: ResourceContext) -> float:
        return self.timeout

    def resource_definitions(
        self, ctx: ResourceContext, stack_id: str
    ) -> Mapping[str, Mapping[str, Any]]:
        return self.members(stack_id)

    def resource_names(self, ctx: ResourceContext, stack_id: str) -> Sequence[str]:
        return list(self.members(stack_id))

    def resource_reference(self, ctx: ResourceContext, stack_id: str, name: str) -> Any:
        self.reads.append(("resource_reference", stack_id))
        return self._reference(stack_id, name)

    def _reference(self, stack_id: str, name: str) -> Any:
        return f"{stack_id}/{name}" if name in self.members(stack_id) else None

    def resource_attribute(
        self, ctx: ResourceContext, stack_id: str, name: str, path: Sequence[str | int]
    ) -> Any:
        self.reads.append(("resource_attribute", stack_id))
        return self._attribute(stack_id, name, path)

    def _attribute(self, stack_id: str, name: str, path: Sequence[str | int]) -> Any:
        member = self.members(stack_id).get(name)
        properties = (member or {}).get("properties") or {}
        if member is None or not path or path[0] not in properties:
            raise InvalidInput(f"no attribute {list(path)} of {name} in {stack_id}")
        return select_path(properties, path)


class BatchMemoryNested(MemoryNested):
    """:class:`MemoryNested` that also offers the optional batch reads."""

    def resource_references(self, ctx: ResourceContext, stack_id: str) -> Mapping[str, Any]:
        self.reads.append(("resource_references", stack_id))
        return {name: self._reference(stack_id, name) for name in self.members(stack_id)}

    def attribute_of_resources(
        self,
        ctx: ResourceContext,
        stack_id: str,
        names: Sequence[str],
        path: Sequence[str | int],
    ) -> Mapping[str, Any]:
        self.reads.append(("attribute_of_resources", stack_id))
        found = {}
        for name in names:
            try:
                found[name] = self._attribute(stack_id, name, path)
            except InvalidInput:
                found[name] = None
        return found


@dataclasses.dataclass
class NestedCtx(Context):
    """A context whose engine offers nested stacks."""

    nested: MemoryNested = dataclasses.field(default_factory=MemoryNested)
