"""``OS::Keystone::User``: a Keystone user, its group memberships and its role grants."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar

from thermik.clients.keystone_grants import add_member, remove_member
from thermik.resources.cloud_access import find
from thermik.resources.constraints import CustomConstraint
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.keystone.base import (
    KeystoneResource,
    domain_property,
    keystone_support,
    renamed,
)
from thermik.resources.keystone.roles import ROLES, Grants, check_roles, wanted
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    PropertiesSchema,
    PropertySchema,
    SupportStatus,
    Type,
)

_V9 = SupportStatus(version="9.0.0")
#: Properties an update sends as they are, by Heat's name and openstacksdk's.
_UPDATED = {
    "description": "description",
    "enabled": "is_enabled",
    "email": "email",
    "password": "password",
}
#: Resource data key of the ids of the groups the user was made a member of (JSON).
MEMBER_OF = "member_of"


class User(KeystoneResource):
    """``OS::Keystone::User``.

    The groups the user joined are kept by id, so an update adds and removes only what
    changed. Deleting the user ends its memberships and grants with it.
    """

    kind: ClassVar[str] = "user"
    plural: ClassVar[str] = "users"
    server_filters: ClassVar[tuple[str, ...]] = ("name", "domain_id")
    support_status = keystone_support("2015.1")

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(
            Type.STRING,
            "The user's name (default: a name unique to the resource).",
            update_allowed=True,
        ),
        "domain": domain_property("Name or id of the domain the user belongs to."),
        "description": PropertySchema(
            Type.STRING, "The user's description.", default="", update_allowed=True
        ),
        "enabled": PropertySchema(
            Type.BOOLEAN, "Whether the user is enabled.", default=True, update_allowed=True
        ),
        "email": PropertySchema(Type.STRING, "The user's email address.", update_allowed=True),
        "password": PropertySchema(
            Type.STRING, "The user's password.", update_allowed=True, secret=True
        ),
        "default_project": PropertySchema(
            Type.STRING,
            "Name or id of the user's default project.",
            update_allowed=True,
            constraints=(CustomConstraint("keystone.project"),),
        ),
        "groups": PropertySchema(
            Type.LIST,
            "Names or ids of the groups the user is a member of.",
            update_allowed=True,
            schema=PropertySchema(
                Type.STRING,
                "A group of the user.",
                constraints=(CustomConstraint("keystone.group"),),
            ),
        ),
        "roles": ROLES,
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "name": AttributeSchema("The user's name.", type=AttributeType.STRING, support_status=_V9),
        "default_project_id": AttributeSchema(
            "The id of the user's default project.",
            type=AttributeType.STRING,
            support_status=_V9,
        ),
        "domain_id": AttributeSchema(
            "The id of the user's domain.", type=AttributeType.STRING, support_status=_V9
        ),
        "enabled": AttributeSchema(
            "Whether the user is enabled.", type=AttributeType.BOOLEAN, support_status=_V9
        ),
        "password_expires_at": AttributeSchema(
            "When the user's password expires.", type=AttributeType.STRING, support_status=_V9
        ),
    }

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        check_roles(props)

    def _grants(self, ctx: ResourceContext) -> Grants:
        return Grants(lambda action: self.call(ctx, action), "user")

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        name = self.name_of(ctx, props)
        domain_id = find(ctx, "keystone.domain", props["domain"])
        fields: dict[str, Any] = {
            "name": name,
            "domain_id": domain_id,
            "description": props["description"],
            "is_enabled": props["enabled"],
        }
        for key in ("email", "password"):
            if props.get(key) is not None:
                fields[key] = props[key]
        if props.get("default_project"):
            fields["default_project_id"] = find(ctx, "keystone.project", props["default_project"])
        user = self.make(ctx, fields, {"name": name, "domain_id": domain_id})
        self._join(ctx, str(user.id), self._group_ids(ctx, props))
        self._grants(ctx).converge(ctx, str(user.id), wanted(ctx, props))
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        assert ctx.physical_id is not None
        fields = renamed(changed, new_props, _UPDATED)
        if "name" in changed:
            fields["name"] = self.name_of(ctx, new_props)
        if "domain" in changed:
            fields["domain_id"] = find(ctx, "keystone.domain", new_props["domain"])
        if "default_project" in changed:
            project = new_props.get("default_project")
            fields["default_project_id"] = (
                find(ctx, "keystone.project", project) if project else None
            )
        self.change(ctx, fields)
        if "groups" in changed:
            self._join(ctx, ctx.physical_id, self._group_ids(ctx, new_props))
        if "roles" in changed:
            self._grants(ctx).converge(ctx, ctx.physical_id, wanted(ctx, new_props))
        return None

    def _group_ids(self, ctx: ResourceContext, props: Props) -> list[str]:
        return list(
            dict.fromkeys(find(ctx, "keystone.group", g) for g in props.get("groups") or ())
        )

    def _join(self, ctx: ResourceContext, user_id: str, groups: Iterable[str]) -> None:
        """Make the user a member of exactly ``groups`` among those this resource manages."""
        target = list(groups)
        have = json.loads(ctx.data.get(MEMBER_OF) or "[]")
        for group in [g for g in target if g not in have]:
            self._member(ctx, add_member, user_id, group)
            have.append(group)
            ctx.data.set(MEMBER_OF, json.dumps(have))
        for group in [g for g in have if g not in target]:
            self._member(ctx, remove_member, user_id, group)
            have.remove(group)
            ctx.data.set(MEMBER_OF, json.dumps(have))

    def _member(
        self, ctx: ResourceContext, action: Callable[[Any, str, str], None], user: str, group: str
    ) -> None:
        self.call(ctx, lambda conn: action(conn, user, group))

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        return {
            "name": found.name,
            "default_project_id": found.default_project_id,
            "domain_id": found.domain_id,
            "enabled": found.is_enabled,
            "password_expires_at": found.password_expires_at,
        }
