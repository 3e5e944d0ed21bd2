"""What the group types share: a child stack of members, and Heat's group attributes.

A group is a :class:`~thermik.resources.nested_stack.NestedStackResource` (the child's
lifecycle) whose child template its properties define (:meth:`NestedGroup.build_child`).

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

from thermik.errors import InvalidInput, NotFound
from thermik.resources.context import ResourceContext
from thermik.resources.nested_services import (
    NestedBatchReads,
    NestedTemplate,
    nested_services,
)
from thermik.resources.nested_stack import NestedStackResource
from thermik.resources.plugin import Props, select_path

REFS: Final = "refs"
REFS_MAP: Final = "refs_map"
ATTRIBUTES: Final = "attributes"
MEMBER_PREFIX: Final = "resource."


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

    def references(self, names: Sequence[str]) -> dict[str, Any]:
        """What ``get_resource`` gives for each member of ``names``."""
        ...

    def attributes(
        self, names: Sequence[str], attribute: str, path: Sequence[str | int]
    ) -> dict[str, Any]:
        """What ``get_attr: [name, attribute, *path]`` gives for each member of ``names``."""
        ...


class ChildMembers:
    """:class:`Members` of a child stack, read through the nested-stack services.

    Services that offer :class:`~thermik.resources.nested_services.NestedBatchReads` are read
    once per attribute, others once per member. A member attribute that does not exist reads
    as ``None`` (a group is not failed because something reads a misspelt member attribute).
    """

    def __init__(self, ctx: ResourceContext, stack_id: str) -> None:
        self._ctx = ctx
        self._stack_id = stack_id
        self._services = nested_services(ctx)

    def references(self, names: Sequence[str]) -> dict[str, Any]:
        ctx, stack_id, services = self._ctx, self._stack_id, self._services
        if isinstance(services, NestedBatchReads):
            found = services.resource_references(ctx, stack_id)
            return {name: found.get(name) for name in names}
        return {name: services.resource_reference(ctx, stack_id, name) for name in names}

    def attributes(
        self, names: Sequence[str], attribute: str, path: Sequence[str | int]
    ) -> dict[str, Any]:
        ctx, stack_id, services = self._ctx, self._stack_id, self._services
        try:
            if isinstance(services, NestedBatchReads):
                found = services.attribute_of_resources(ctx, stack_id, names, [attribute, *path])
                return {name: found.get(name) for name in names}
        except InvalidInput:
            return dict.fromkeys(names)
        return {name: self._attribute(name, attribute, path) for name in names}

    def _attribute(self, name: str, attribute: str, path: Sequence[str | int]) -> Any:
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
            return members.references([member])[member]
        return members.attributes([member], str(parts[1]), parts[2:])[member]
    if key == REFS:
        refs = members.references(names)
        return select_path([refs[name] for name in names], path)
    if key == REFS_MAP:
        return select_path(members.references(names), path)
    if key == ATTRIBUTES:
        if not path:
            return None
        return members.attributes(names, str(path[0]), path[1:])
    values = members.attributes(names, key, path)
    return [values[name] for name in names]


class NestedGroup(NestedStackResource):
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

    def nested(self, ctx: ResourceContext, props: Props) -> NestedTemplate:
        """The child: the members' template, with the parent stack's files."""
        return NestedTemplate(self.build_child(ctx, props), files=self.parent_files)

    # -- attributes -----------------------------------------------------------------------

    def attribute(
        self, ctx: ResourceContext, props: Props, name: str, path: Sequence[str | int] = ()
    ) -> Any:
        """Heat's group attributes (see the module docstring); ``None`` without a child."""
        if ctx.physical_id is None:
            return None
        members = ChildMembers(ctx, ctx.physical_id)
        try:
            return member_attribute(members, self.member_names(ctx, props), name, path)
        except NotFound:
            return None

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        """The attribute ``name`` without a path."""
        return self.attribute(ctx, props, name)
