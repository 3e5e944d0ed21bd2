"""``OS::Keystone::Group``: a Keystone group of users, with its role grants."""

from __future__ import annotations

from typing import ClassVar

from thermik.resources.cloud_access import find
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.keystone.base import (
    KeystoneResource,
    domain_property,
    keystone_support,
    renamed,
)
from thermik.resources.keystone.roles import ROLES, Grants, check_roles, wanted
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, Type


class Group(KeystoneResource):
    """``OS::Keystone::Group``. Deleting the group ends its grants with it."""

    kind: ClassVar[str] = "group"
    plural: ClassVar[str] = "groups"
    server_filters: ClassVar[tuple[str, ...]] = ("name", "domain_id")
    support_status = keystone_support("2015.1")

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(
            Type.STRING,
            "The group's name (default: a name unique to the resource).",
            update_allowed=True,
        ),
        "domain": domain_property("Name or id of the domain the group belongs to."),
        "description": PropertySchema(
            Type.STRING, "The group's description.", default="", update_allowed=True
        ),
        "roles": ROLES,
    }

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        check_roles(props)

    def _grants(self, ctx: ResourceContext) -> Grants:
        return Grants(lambda action: self.call(ctx, action), "group")

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        name = self.name_of(ctx, props)
        domain_id = find(ctx, "keystone.domain", props["domain"])
        fields = {"name": name, "domain_id": domain_id, "description": props["description"]}
        group = self.make(ctx, fields, {"name": name, "domain_id": domain_id})
        self._grants(ctx).converge(ctx, str(group.id), wanted(ctx, props))
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        assert ctx.physical_id is not None
        fields = renamed(changed, new_props, {"description": "description"})
        if "name" in changed:
            fields["name"] = self.name_of(ctx, new_props)
        if "domain" in changed:
            fields["domain_id"] = find(ctx, "keystone.domain", new_props["domain"])
        self.change(ctx, fields)
        if "roles" in changed:
            self._grants(ctx).converge(ctx, ctx.physical_id, wanted(ctx, new_props))
        return None
