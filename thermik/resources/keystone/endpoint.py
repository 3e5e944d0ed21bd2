"""``OS::Keystone::Endpoint``: an endpoint of a service in Keystone's catalog."""

from __future__ import annotations

from typing import Any, ClassVar

from thermik.resources.cloud_access import find
from thermik.resources.constraints import AllowedValues, CustomConstraint
from thermik.resources.context import ResourceContext
from thermik.resources.keystone.base import KeystoneResource, keystone_support, renamed
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, SupportStatus, Type

_UPDATED = {"interface": "interface", "url": "url", "enabled": "is_enabled"}


class Endpoint(KeystoneResource):
    """``OS::Keystone::Endpoint``. An interrupted create finds its endpoint by service,
    interface, URL and name."""

    kind: ClassVar[str] = "endpoint"
    plural: ClassVar[str] = "endpoints"
    server_filters: ClassVar[tuple[str, ...]] = ("service_id", "interface")
    support_status = keystone_support("5.0.0")

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(
            Type.STRING,
            "The endpoint's name (default: a name unique to the resource).",
            update_allowed=True,
        ),
        "region": PropertySchema(
            Type.STRING,
            "The id of the region the endpoint serves.",
            update_allowed=True,
            constraints=(CustomConstraint("keystone.region"),),
        ),
        "service": PropertySchema(
            Type.STRING,
            "Name or id of the service the endpoint is of.",
            required=True,
            update_allowed=True,
            constraints=(CustomConstraint("keystone.service"),),
        ),
        "interface": PropertySchema(
            Type.STRING,
            "Who the endpoint is for.",
            required=True,
            update_allowed=True,
            constraints=(AllowedValues(("public", "internal", "admin")),),
        ),
        "url": PropertySchema(
            Type.STRING, "The endpoint's URL.", required=True, update_allowed=True
        ),
        "enabled": PropertySchema(
            Type.BOOLEAN,
            "Whether the endpoint is enabled.",
            default=True,
            update_allowed=True,
            support_status=SupportStatus(version="6.0.0"),
        ),
    }

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        fields: dict[str, Any] = {
            "name": self.name_of(ctx, props),
            "service_id": find(ctx, "keystone.service", props["service"]),
            "interface": props["interface"],
            "url": props["url"],
            "is_enabled": props["enabled"],
        }
        if props.get("region"):
            fields["region_id"] = find(ctx, "keystone.region", props["region"])
        found_by = {k: fields[k] for k in ("name", "service_id", "interface", "url")}
        self.make(ctx, fields, found_by)
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        fields = renamed(changed, new_props, _UPDATED)
        if "name" in changed:
            fields["name"] = self.name_of(ctx, new_props)
        if "service" in changed:
            fields["service_id"] = find(ctx, "keystone.service", new_props["service"])
        if "region" in changed:
            region = new_props.get("region")
            fields["region_id"] = find(ctx, "keystone.region", region) if region else None
        self.change(ctx, fields)
        return None
