"""``OS::Keystone::Service``: a service of Keystone's catalog."""

from __future__ import annotations

from typing import Any, ClassVar

from thermik.resources.context import ResourceContext
from thermik.resources.keystone.base import KeystoneResource, keystone_support, renamed
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, SupportStatus, Type

_UPDATED = {"description": "description", "type": "type", "enabled": "is_enabled"}


class Service(KeystoneResource):
    """``OS::Keystone::Service``."""

    kind: ClassVar[str] = "service"
    plural: ClassVar[str] = "services"
    server_filters: ClassVar[tuple[str, ...]] = ("name", "type")
    support_status = keystone_support("5.0.0")

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(
            Type.STRING,
            "The service's name (default: a name unique to the resource).",
            update_allowed=True,
        ),
        "description": PropertySchema(
            Type.STRING, "The service's description.", update_allowed=True
        ),
        "type": PropertySchema(
            Type.STRING,
            "The service's type (compute, object-store ...).",
            required=True,
            update_allowed=True,
        ),
        "enabled": PropertySchema(
            Type.BOOLEAN,
            "Whether the service is enabled.",
            default=True,
            update_allowed=True,
            support_status=SupportStatus(version="6.0.0"),
        ),
    }

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        name = self.name_of(ctx, props)
        fields: dict[str, Any] = {
            "name": name,
            "type": props["type"],
            "is_enabled": props["enabled"],
        }
        if props.get("description") is not None:
            fields["description"] = props["description"]
        self.make(ctx, fields, {"name": name, "type": props["type"]})
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        fields = renamed(changed, new_props, _UPDATED)
        if "name" in changed:
            fields["name"] = self.name_of(ctx, new_props)
        self.change(ctx, fields)
        return None
