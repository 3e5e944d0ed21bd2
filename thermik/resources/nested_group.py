"""What the group types share: a child stack's lifecycle and Heat's group attributes.

A group resource's physical id is its child stack's id. Every action starts the matching
operation on the child through :func:`~thermik.resources.nested_services.nested_services`
and completes when the child's operation settles; the engine wakes the resource when the
child's traversal ends, so the poll hint is only a safety net.

Attributes follow Heat's group semantics, with the member names the group's properties define
(not whatever the child holds at the moment):

- ``refs``: the members' reference ids, in member order; ``refs_map``: name -> reference id;
- ``attributes`` with a path ``[ATTR, ...]``: name -> that attribute of each member;
- ``resource.<n>``: member ``n``'s reference id; ``resource.<n>.<attr>`` (or ``resource.<n>``
  with a path): that member's attribute;
- any other name: the list of that attribute across the members.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol

from thermik.errors import InvalidInput, NotFound, PluginError
from thermik.resources.context import ResourceContext
from thermik.resources.nested_services import (
    FAILED,
    NestedState,
    NestedTemplate,
    nested_services,
)
from thermik.resources.plugin import (
    CheckResult,
    NeedsReplacement,
    Operation,
    PollAfter,
    Progress,
    Props,
    ResourcePlugin,
    select_path,
)

#: Seconds between safety-net polls of a running child (the engine wakes the parent anyway).
POLL_SECONDS: Final = 5.0
REFS, REFS_MAP, ATTRIBUTES, MEMBER_PREFIX = "refs", "refs_map", "attributes", "resource."


@dataclasses.dataclass(frozen=True, slots=True)
class MemberCheck:
    """A member definition a group's child will hold, to check before anything runs.

    Attributes:
        name: the member's name in the child.
        type: its type (may be an unresolved value while validating).
        properties: its property values (may hold unresolved values).
        type_path: where the type is written, relative to the group resource.
        properties_path: where the properties are written, relative to the group resource.
    """

    name: str
    type: Any
    properties: Mapping[str, Any] | None
    type_path: tuple[str | int, ...]
    properties_path: tuple[str | int, ...]


class Members(Protocol):
    """Read access to a group's members (names are the child's resource names)."""

    def reference(self, name: str) -> Any:
        """What ``get_resource`` gives for member ``name``."""
        ...

    def attribute(self, name: str, attribute: str, path: Sequence[str | int]) -> Any:
        """What ``get_attr: [name, attribute, *path]`` gives inside the child."""
        ...


class ChildMembers:
    """:class:`Members` of a child stack, read through the nested-stack services.

    A member attribute that does not exist reads as ``None`` (a group is not failed because
    something reads a misspelt member attribute).
    """

    def __init__(self, ctx: ResourceContext, stack_id: str) -> None:
        self._ctx = ctx
        self._stack_id = stack_id
        self._services = nested_services(ctx)

    def reference(self, name: str) -> Any:
        return self._services.resource_reference(self._ctx, self._stack_id, name)

    def attribute(self, name: str, attribute: str, path: Sequence[str | int]) -> Any:
        try:
            return self._services.resource_attribute(
                self._ctx, self._stack_id, name, [attribute, *path]
            )
        except InvalidInput:
            return None


def member_attribute(
    members: Members, names: Sequence[str], key: str, path: Sequence[str | int] = ()
) -> Any:
    """The group attribute ``key`` (with ``path``) of a group whose members are ``names``."""
    if key.startswith(MEMBER_PREFIX):
        parts: list[Any] = [*key.split(".", 2)[1:], *path]
        member = str(parts[0])
        if member not in names:
            return None
        if len(parts) == 1:
            return members.reference(member)
        return members.attribute(member, str(parts[1]), parts[2:])
    if key == REFS:
        return select_path([members.reference(name) for name in names], path)
    if key == REFS_MAP:
        return select_path({name: members.reference(name) for name in names}, path)
    if key == ATTRIBUTES:
        if not path:
            return None
        return {name: members.attribute(name, str(path[0]), path[1:]) for name in names}
    return [members.attribute(name, key, path) for name in names]


def _settled(state: NestedState, what: str) -> CheckResult:
    if not state.settled:
        return PollAfter(POLL_SECONDS)
    if state.status == FAILED:
        raise PluginError(state.reason or f"{what} of the nested stack failed")
    return True


class NestedGroup(ResourcePlugin):
    """A resource type whose physical thing is a child stack built by :meth:`build_child`."""

    dynamic_attributes = True

    def build_child(self, ctx: ResourceContext, props: Props) -> Mapping[str, Any]:
        """The child template for ``props`` (may record what it decided in ``ctx.data``)."""
        raise NotImplementedError

    def member_names(self, ctx: ResourceContext, props: Props) -> list[str]:
        """The names of the members ``props`` define."""
        raise NotImplementedError

    @classmethod
    def members_to_check(cls, props: Props) -> tuple[list[MemberCheck], int]:
        """The member definitions to check, and how many times the child repeats them."""
        raise NotImplementedError

    # -- lifecycle ------------------------------------------------------------------------

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Store the child stack and start creating it; its id becomes the physical id."""
        template = self.build_child(ctx, props)
        stack_id = nested_services(ctx).create(ctx, NestedTemplate(template))
        ctx.set_physical_id(stack_id)
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | NeedsReplacement | None:
        """Start updating the child to the template ``new_props`` define."""
        if ctx.physical_id is None:
            return NeedsReplacement("the group has no nested stack")
        template = self.build_child(ctx, new_props)
        nested_services(ctx).update(ctx, ctx.physical_id, NestedTemplate(template))
        return None

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Start deleting the child (none: nothing to do)."""
        if ctx.physical_id is not None:
            nested_services(ctx).delete(ctx, ctx.physical_id)
        return None

    def check_create_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether the child's creation settled (its failure fails the group)."""
        return self._child_settled(ctx, Operation.CREATE)

    def check_update_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether the child's update settled."""
        return self._child_settled(ctx, Operation.UPDATE)

    def check_delete_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether the child is gone (a purged child counts as gone)."""
        if ctx.physical_id is None:
            return True
        try:
            return self._child_settled(ctx, Operation.DELETE)
        except NotFound:
            return True

    def cancel(self, ctx: ResourceContext, props: Props, operation: Operation) -> None:
        """Stop the child's running operation."""
        if ctx.physical_id is not None:
            nested_services(ctx).cancel(ctx, ctx.physical_id)

    # -- suspend, resume, check, snapshot -------------------------------------------------

    def suspend(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Start suspending the child."""
        return self._act(ctx, Operation.SUSPEND)

    def resume(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Start resuming the child."""
        return self._act(ctx, Operation.RESUME)

    def check(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Start checking the child."""
        return self._act(ctx, Operation.CHECK)

    def snapshot(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Start a snapshot of the child."""
        return self._act(ctx, Operation.SNAPSHOT)

    def check_suspend_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether the child's suspension settled."""
        return self._child_settled(ctx, Operation.SUSPEND)

    def check_resume_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether the child's resumption settled."""
        return self._child_settled(ctx, Operation.RESUME)

    def check_check_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether the child's check settled."""
        return self._child_settled(ctx, Operation.CHECK)

    def check_snapshot_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether the child's snapshot settled."""
        return self._child_settled(ctx, Operation.SNAPSHOT)

    def _act(self, ctx: ResourceContext, operation: Operation) -> Progress | None:
        if ctx.physical_id is None:
            raise PluginError(
                f"{ctx.resource_type}: cannot {operation.value} a group without a nested stack",
                resource=ctx.resource_name,
            )
        nested_services(ctx).act(ctx, ctx.physical_id, operation.value)
        return None

    def _child_settled(self, ctx: ResourceContext, operation: Operation) -> CheckResult:
        if ctx.physical_id is None:
            return True
        state = nested_services(ctx).state(ctx, ctx.physical_id)
        return _settled(state, operation.value)

    # -- attributes -----------------------------------------------------------------------

    def attribute(
        self, ctx: ResourceContext, props: Props, name: str, path: Sequence[str | int] = ()
    ) -> Any:
        """Heat's group attributes (see the module docstring); ``None`` before the child."""
        if ctx.physical_id is None:
            return None
        members = ChildMembers(ctx, ctx.physical_id)
        return member_attribute(members, self.member_names(ctx, props), name, path)

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        """The attribute ``name`` without a path."""
        return self.attribute(ctx, props, name)
