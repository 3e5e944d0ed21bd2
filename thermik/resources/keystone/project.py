"""``OS::Keystone::Project``: a Keystone project, in a domain, maybe under a parent project."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from thermik.resources.cloud_access import find
from thermik.resources.constraints import CustomConstraint
from thermik.resources.context import ResourceContext
from thermik.resources.keystone.base import (
    KeystoneResource,
    domain_property,
    keystone_support,
    renamed,
)
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

_V10 = SupportStatus(version="10.0.0")
#: Properties an update sends, by Heat's name and openstacksdk's.
_UPDATED = {"description": "description", "enabled": "is_enabled", "tags": "tags"}


class Project(KeystoneResource):
    """``OS::Keystone::Project``."""

    kind: ClassVar[str] = "project"
    plural: ClassVar[str] = "projects"
    server_filters: ClassVar[tuple[str, ...]] = ("name", "domain_id")
    support_status = keystone_support("2015.1")

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(
            Type.STRING,
            "The project's name (default: a name unique to the resource).",
            update_allowed=True,
        ),
        "domain": domain_property("Name or id of the domain the project belongs to."),
        "description": PropertySchema(
            Type.STRING, "The project's description.", default="", update_allowed=True
        ),
        "enabled": PropertySchema(
            Type.BOOLEAN, "Whether the project is enabled.", default=True, update_allowed=True
        ),
        "parent": PropertySchema(
            Type.STRING,
            "Name or id of the parent project, for a project in a hierarchy.",
            constraints=(CustomConstraint("keystone.project"),),
            support_status=SupportStatus(version="6.0.0"),
        ),
        "tags": PropertySchema(
            Type.LIST,
            "Tags to label and sort projects by.",
            default=[],
            update_allowed=True,
            support_status=_V10,
        ),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "name": AttributeSchema(
            "The project's name.", type=AttributeType.STRING, support_status=_V10
        ),
        "parent_id": AttributeSchema(
            "The id of the parent project.", type=AttributeType.STRING, support_status=_V10
        ),
        "domain_id": AttributeSchema(
            "The id of the project's domain.", type=AttributeType.STRING, support_status=_V10
        ),
        "enabled": AttributeSchema(
            "Whether the project is enabled.", type=AttributeType.BOOLEAN, support_status=_V10
        ),
        "is_domain": AttributeSchema(
            "Whether the project also acts as a domain.",
            type=AttributeType.BOOLEAN,
            support_status=_V10,
        ),
    }

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        name = self.name_of(ctx, props)
        domain_id = find(ctx, "keystone.domain", props["domain"])
        fields: dict[str, Any] = {
            "name": name,
            "domain_id": domain_id,
            "description": props["description"],
            "is_enabled": props["enabled"],
            "tags": list(props["tags"] or []),
        }
        if props.get("parent"):
            fields["parent_id"] = find(ctx, "keystone.project", props["parent"])
        self.make(ctx, fields, {"name": name, "domain_id": domain_id})
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        fields = renamed(changed, new_props, _UPDATED)
        if "tags" in fields:
            fields["tags"] = list(fields["tags"] or [])
        if "name" in changed:
            fields["name"] = self.name_of(ctx, new_props)
        if "domain" in changed:
            fields["domain_id"] = find(ctx, "keystone.domain", new_props["domain"])
        self.change(ctx, fields)
        return None

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        return {
            "name": found.name,
            "parent_id": found.parent_id,
            "domain_id": found.domain_id,
            "enabled": found.is_enabled,
            "is_domain": found.is_domain,
        }
