"""``OS::Keystone::Region``: a Keystone region, maybe the child of another."""

from __future__ import annotations

import urllib.parse
from typing import Any, ClassVar

from thermik.resources.cloud_access import find
from thermik.resources.constraints import CustomConstraint
from thermik.resources.context import ResourceContext
from thermik.resources.keystone.base import KeystoneResource, keystone_support
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, Type


class Region(KeystoneResource):
    """``OS::Keystone::Region``.

    The physical id is the region's id: the ``id`` property, URL-quoted as Heat quotes it, or
    the one Keystone chooses. Keystone's regions have no enabled flag: ``enabled`` is accepted
    and not sent. A region whose id Keystone chose cannot be told apart from others, so a
    create an engine crash interrupted may leave that one behind.
    """

    kind: ClassVar[str] = "region"
    plural: ClassVar[str] = "regions"
    server_filters: ClassVar[tuple[str, ...]] = ()
    support_status = keystone_support("6.0.0")

    properties_schema: ClassVar[PropertiesSchema] = {
        "id": PropertySchema(
            Type.STRING,
            "The region's id, unique in the cloud (URL-quoted when sent); default: one "
            "Keystone chooses.",
        ),
        "parent_region": PropertySchema(
            Type.STRING,
            "The id of the region this one is a child of.",
            update_allowed=True,
            constraints=(CustomConstraint("keystone.region"),),
        ),
        "description": PropertySchema(
            Type.STRING, "The region's description.", update_allowed=True
        ),
        "enabled": PropertySchema(
            Type.BOOLEAN, "Whether the region is enabled.", default=True, update_allowed=True
        ),
    }

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        fields: dict[str, Any] = {"description": props.get("description") or ""}
        if props.get("id"):
            fields["id"] = urllib.parse.quote(props["id"])
        if props.get("parent_region"):
            fields["parent_region_id"] = find(ctx, "keystone.region", props["parent_region"])
        self.make(ctx, fields, {"id": fields["id"]} if "id" in fields else None)
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        fields: dict[str, Any] = {}
        if "description" in changed:
            fields["description"] = new_props.get("description") or ""
        if "parent_region" in changed:
            parent = new_props.get("parent_region")
            fields["parent_region_id"] = find(ctx, "keystone.region", parent) if parent else None
        self.change(ctx, fields)
        return None
