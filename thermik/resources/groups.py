"""Group types backed by a nested stack: ``OS::Heat::ResourceGroup`` and ``ResourceChain``.

The child templates come from :mod:`thermik.resources.group_templates`, the lifecycle and the
attributes from :class:`~thermik.resources.nested_group.NestedGroup`. Both types expose
attributes beyond their schema (``resource.<n>``, ``resource.<n>.<attr>``, and any member
attribute as a list), so ``dynamic_attributes`` is set.

``ResourceGroup`` honours its ``batch_create`` and ``rolling_update`` update policies (members
created or updated ``max_batch_size`` at a time, ``pause_time`` seconds apart, keeping
``min_in_service`` members in service): see :mod:`thermik.resources.batched_group`.
``ResourceChain`` has no update policy: its members are created and updated together (or in
sequence, as its ``concurrent`` property says).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final

from thermik.errors import NotFound, PropertyError
from thermik.resources.batched_group import BatchedGroup, Target, normalised
from thermik.resources.constraints import AllowedValues, Length, Range
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.group_templates import (
    APPEND,
    DEFAULT_INDEX_VAR,
    chain_names,
    chain_template,
    group_template,
    member_definition,
    member_names,
    removal_candidates,
    updated_removals,
)
from thermik.resources.nested_group import ChildMembers, MemberCheck, NestedGroup
from thermik.resources.nested_services import nested_services
from thermik.resources.plugin import Props, select_path
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    PropertiesSchema,
    PropertySchema,
    SupportStatus,
    Type,
)

#: Resource data key of the names removed by removal policies (a JSON list, never reused).
REMOVED_KEY: Final = "name_blacklist"
REMOVED_RSRC_LIST: Final = "removed_rsrc_list"


def removed_names(ctx: ResourceContext) -> list[str]:
    """The member names removal policies removed so far (sorted)."""
    stored = ctx.data.get(REMOVED_KEY)
    return [str(name) for name in json.loads(stored)] if stored else []


def batch_schema(*, with_min_in_service: bool, version: str) -> PropertySchema:
    """An update-policy entry (``rolling_update`` or ``batch_create``) of a group type."""
    entries: dict[str, PropertySchema] = {}
    if with_min_in_service:
        entries["min_in_service"] = PropertySchema(
            Type.INTEGER,
            "Members kept in service while a rolling update runs.",
            default=0,
            constraints=(Range(min=0),),
        )
    entries["max_batch_size"] = PropertySchema(
        Type.INTEGER,
        "Most members handled at once.",
        default=1,
        constraints=(Range(min=1),),
    )
    entries["pause_time"] = PropertySchema(
        Type.NUMBER,
        "Seconds to pause between batches.",
        default=0,
        constraints=(Range(min=0),),
    )
    return PropertySchema(Type.MAP, schema=entries, support_status=SupportStatus(version=version))


class ResourceGroup(BatchedGroup):
    """``OS::Heat::ResourceGroup``: ``count`` copies of one resource definition."""

    support_status = SupportStatus(version="2014.1")
    properties_schema: ClassVar[PropertiesSchema] = {
        "count": PropertySchema(
            Type.INTEGER,
            "How many members to create.",
            default=1,
            constraints=(Range(min=0),),
            update_allowed=True,
        ),
        "index_var": PropertySchema(
            Type.STRING,
            "Text replaced by each member's index inside the resource definition.",
            default="%index%",
            constraints=(Length(min=3),),
            support_status=SupportStatus(version="2014.2"),
        ),
        "resource_def": PropertySchema(
            Type.MAP,
            "The definition every member is made from, as if written in the template.",
            schema={
                "type": PropertySchema(Type.STRING, "The members' type.", required=True),
                "properties": PropertySchema(Type.MAP, "The members' property values."),
                "metadata": PropertySchema(
                    Type.MAP,
                    "The members' metadata.",
                    support_status=SupportStatus(version="5.0.0"),
                ),
            },
            required=True,
            update_allowed=True,
        ),
        "removal_policies": PropertySchema(
            Type.LIST,
            "Which members to remove on update.",
            default=[],
            schema=PropertySchema(
                Type.MAP,
                "A removal policy.",
                schema={
                    "resource_list": PropertySchema(
                        Type.LIST,
                        "Members to remove, by nested name or by reference id; a removed "
                        "name is never reused.",
                        default=[],
                    ),
                },
            ),
            update_allowed=True,
            support_status=SupportStatus(version="2015.1"),
        ),
        "removal_policies_mode": PropertySchema(
            Type.STRING,
            'Whether an update appends to the removal list ("append") or replaces it.',
            default="append",
            constraints=(AllowedValues(("append", "update")),),
            update_allowed=True,
            support_status=SupportStatus(version="10.0.0"),
        ),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "refs": AttributeSchema("Reference ids of the members.", type=AttributeType.LIST),
        "refs_map": AttributeSchema(
            "Member name -> reference id.",
            type=AttributeType.MAP,
            support_status=SupportStatus(version="7.0.0"),
        ),
        "attributes": AttributeSchema(
            "Member name -> the attribute named by the get_attr path.",
            type=AttributeType.MAP,
            support_status=SupportStatus(version="2014.2"),
        ),
        "removed_rsrc_list": AttributeSchema(
            "Names of removed members.",
            type=AttributeType.LIST,
            support_status=SupportStatus(version="7.0.0"),
        ),
    }
    update_policy_schema: ClassVar[PropertiesSchema] = {
        "rolling_update": batch_schema(with_min_in_service=True, version="5.0.0"),
        "batch_create": batch_schema(with_min_in_service=False, version="5.0.0"),
    }

    def member_names(self, ctx: ResourceContext, props: Props) -> list[str]:
        """The first ``count`` indices never removed."""
        return member_names(props["count"], removed_names(ctx))

    @classmethod
    def members_to_check(cls, props: Props) -> tuple[list[MemberCheck], int]:
        """The first member, repeated ``count`` times; nothing when ``count`` is 0 (as in Heat,
        a zero count disables the definition)."""
        count, resource_def = props.get("count"), props.get("resource_def")
        if count == 0 or not isinstance(resource_def, Mapping):
            return [], 0
        index_var = props.get("index_var")
        index_var = index_var if isinstance(index_var, str) else DEFAULT_INDEX_VAR
        member = member_definition(resource_def, "0", index_var)
        check = MemberCheck(
            "0",
            member["type"],
            member.get("properties"),
            ("properties", "resource_def", "type"),
            ("properties", "resource_def", "properties"),
        )
        return [check], count if isinstance(count, int) else 1

    def target(self, ctx: ResourceContext, props: Props) -> Target:
        """``count`` members, never one of the names removed so far."""
        resource_def = props["resource_def"]
        index_var = props.get("index_var") or DEFAULT_INDEX_VAR

        @functools.cache  # a batch compares every member's definition more than once
        def define(name: str) -> dict[str, Any]:
            return normalised(member_definition(resource_def, name, index_var))

        return Target(props["count"], frozenset(removed_names(ctx)), define)

    def build_child(self, ctx: ResourceContext, props: Props) -> Mapping[str, Any]:
        """The members' template, after recording the names the removal policies remove."""
        current = removed_names(ctx)
        removed = self._removals(ctx, props, current)
        if removed != current:
            ctx.data.set(REMOVED_KEY, json.dumps(removed))
        names = member_names(props["count"], removed)
        index_var = props.get("index_var") or DEFAULT_INDEX_VAR
        return group_template(props["resource_def"], names, index_var)

    @staticmethod
    def _removals(ctx: ResourceContext, props: Props, current: list[str]) -> list[str]:
        policies = props.get("removal_policies")
        mode = props.get("removal_policies_mode") or APPEND
        stack_id = ctx.physical_id
        if stack_id is None or not any(True for _ in removal_candidates(policies)):
            return updated_removals(policies, mode, current, created=stack_id is not None)
        try:
            members = list(nested_services(ctx).resource_names(ctx, stack_id))
            refs = ChildMembers(ctx, stack_id).references(members)
        except NotFound:  # the child was purged: the group starts again with a new one
            return updated_removals(policies, mode, current, created=False)
        return updated_removals(policies, mode, current, created=True, members=members, refs=refs)

    def attribute(
        self, ctx: ResourceContext, props: Props, name: str, path: Sequence[str | int] = ()
    ) -> Any:
        """``removed_rsrc_list`` from the resource's data, the rest from the members."""
        if name == REMOVED_RSRC_LIST:
            return select_path(removed_names(ctx), path)
        return super().attribute(ctx, props, name, path)


class ResourceChain(NestedGroup):
    """``OS::Heat::ResourceChain``: one member per listed type, in sequence or concurrently."""

    support_status = SupportStatus(version="6.0.0")
    properties_schema: ClassVar[PropertiesSchema] = {
        "resources": PropertySchema(
            Type.LIST,
            "Types (or registry aliases) of the members, in order.",
            required=True,
            update_allowed=True,
        ),
        "concurrent": PropertySchema(
            Type.BOOLEAN,
            "Create members at once instead of each after the previous one.",
            default=False,
        ),
        "resource_properties": PropertySchema(Type.MAP, "Properties given to every member."),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "refs": AttributeSchema("Reference ids of the members.", type=AttributeType.LIST),
        "attributes": AttributeSchema(
            "Member name -> the attribute named by the get_attr path.", type=AttributeType.MAP
        ),
    }

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        """Every entry of ``resources`` is a type name."""
        for index, entry in enumerate(props.get("resources") or ()):
            if vctx.unresolved(entry):
                continue
            if not isinstance(entry, str) or not entry:
                raise PropertyError(
                    f"a member type must be a non-empty string, not {entry!r}",
                    path=("properties", "resources", index),
                )

    def member_names(self, ctx: ResourceContext, props: Props) -> list[str]:
        """One name per listed type: its position."""
        return chain_names(props["resources"])

    @classmethod
    def members_to_check(cls, props: Props) -> tuple[list[MemberCheck], int]:
        """Every member of the chain."""
        types = props.get("resources")
        if not isinstance(types, list):
            return [], 1
        properties = props.get("resource_properties")
        where = ("properties", "resource_properties")
        checks = [
            MemberCheck(name, type_name, properties, ("properties", "resources", index), where)
            for index, (name, type_name) in enumerate(zip(chain_names(types), types, strict=True))
        ]
        return checks, 1

    def build_child(self, ctx: ResourceContext, props: Props) -> Mapping[str, Any]:
        """One member per listed type, each after the previous unless ``concurrent``."""
        return chain_template(
            props["resources"],
            props.get("resource_properties"),
            concurrent=bool(props.get("concurrent")),
        )
