"""``OS::Keystone::Role``: a Keystone role (in a domain, as Heat makes them since 10.0.0)."""

from __future__ import annotations

from typing import ClassVar

from thermik.resources.cloud_access import find
from thermik.resources.context import ResourceContext
from thermik.resources.keystone.base import KeystoneResource, domain_property, keystone_support
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, SupportStatus, Type


class Role(KeystoneResource):
    """``OS::Keystone::Role``."""

    kind: ClassVar[str] = "role"
    plural: ClassVar[str] = "roles"
    server_filters: ClassVar[tuple[str, ...]] = ("name", "domain_id")
    support_status = keystone_support("2015.1")

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(
            Type.STRING,
            "The role's name (default: a name unique to the resource).",
            update_allowed=True,
        ),
        "domain": domain_property(
            "Name or id of the domain the role belongs to.",
            update_allowed=False,
            support_status=SupportStatus(version="10.0.0"),
        ),
    }

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        name = self.name_of(ctx, props)
        domain_id = find(ctx, "keystone.domain", props["domain"])
        self.make(
            ctx, {"name": name, "domain_id": domain_id}, {"name": name, "domain_id": domain_id}
        )
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        if "name" in changed:
            self.change(ctx, {"name": self.name_of(ctx, new_props)})
        return None
