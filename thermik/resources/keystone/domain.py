"""``OS::Keystone::Domain``: a Keystone domain."""

from __future__ import annotations

from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.clients.keystone import identity
from thermik.resources.context import ResourceContext
from thermik.resources.keystone.base import KeystoneResource, keystone_support, renamed
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, Type


class Domain(KeystoneResource):
    """``OS::Keystone::Domain``. Keystone deletes only a disabled domain: delete disables it
    first."""

    kind: ClassVar[str] = "domain"
    plural: ClassVar[str] = "domains"
    support_status = keystone_support("8.0.0")

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(
            Type.STRING,
            "The domain's name (default: a name unique to the resource).",
            update_allowed=True,
        ),
        "description": PropertySchema(
            Type.STRING, "The domain's description.", update_allowed=True
        ),
        "enabled": PropertySchema(
            Type.BOOLEAN, "Whether the domain is enabled.", default=True, update_allowed=True
        ),
    }

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        name = self.name_of(ctx, props)
        fields: dict[str, Any] = {"name": name, "is_enabled": props["enabled"]}
        if props.get("description") is not None:
            fields["description"] = props["description"]
        self.make(ctx, fields, {"name": name})
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        fields = renamed(
            changed, new_props, {"description": "description", "enabled": "is_enabled"}
        )
        if "name" in changed:
            fields["name"] = self.name_of(ctx, new_props)
        self.change(ctx, fields)
        return None

    def remove(self, client: CloudClient, physical_id: str) -> None:
        client.call(lambda conn: identity(conn).update_domain(physical_id, is_enabled=False))
        super().remove(client, physical_id)
