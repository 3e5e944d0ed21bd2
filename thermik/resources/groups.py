"""Group types backed by a nested stack: ``OS::Heat::ResourceGroup`` and ``ResourceChain``.

Their behaviour (building the nested template, rolling updates, removal policies) needs nested
stacks in the engine and arrives with it; the schemas are complete now. Both expose attributes
beyond their schema (``resource.<n>``, ``resource.<n>.<attr>``, and any member attribute as a
list), so ``dynamic_attributes`` is set.
"""

from __future__ import annotations

from typing import ClassVar

from thermik.resources.constraints import AllowedValues, Length, Range
from thermik.resources.pending import PendingPlugin
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    PropertiesSchema,
    PropertySchema,
    SupportStatus,
    Type,
)


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


class ResourceGroup(PendingPlugin):
    """``OS::Heat::ResourceGroup``: ``count`` copies of one resource definition."""

    support_status = SupportStatus(version="2014.1")
    dynamic_attributes = True
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


class ResourceChain(PendingPlugin):
    """``OS::Heat::ResourceChain``: one member per listed type, in sequence or concurrently."""

    support_status = SupportStatus(version="6.0.0")
    dynamic_attributes = True
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
