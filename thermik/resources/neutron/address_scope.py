"""``OS::Neutron::AddressScope``: a scope in which subnet pools' addresses do not overlap.

Neutron's address scopes take neither a description nor tags, so no creation tag can ride
on one: the name is chosen and recorded before the create, and a create that an engine crash
interrupted (or a delete of its version) finds what it made by that name in its project.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.resources.constraints import AllowedValues
from thermik.resources.context import ResourceContext
from thermik.resources.neutron.base import NeutronResource
from thermik.resources.neutron.common import first
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, SupportStatus, Type
from thermik.resources.untagged import refused_forgets

#: Resource data key of the scope's name, chosen once: an interrupted create finds it by name.
NAME_KEY = "physical_name"


class AddressScope(NeutronResource):
    """``OS::Neutron::AddressScope``."""

    kind: ClassVar[str] = "address_scope"
    plural: ClassVar[str] = "address_scopes"
    support_status = SupportStatus(version="6.0.0")

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(
            Type.STRING, "The name for the address scope.", update_allowed=True
        ),
        "shared": PropertySchema(
            Type.BOOLEAN,
            "Whether the address scope should be shared to other tenants. Note that the "
            "default policy setting restricts usage of this attribute to administrative users "
            "only, and restricts changing of shared address scope to unshared with update.",
            default=False,
            update_allowed=True,
        ),
        "tenant_id": PropertySchema(
            Type.STRING,
            "The owner tenant ID of the address scope. Only administrative users can specify a "
            "tenant ID other than their own.",
        ),
        "ip_version": PropertySchema(
            Type.INTEGER,
            "Address family of the address scope, which is 4 or 6.",
            default=4,
            constraints=(AllowedValues((4, 6)),),
        ),
    }

    def __init__(self) -> None:
        super().__init__()
        #: The name the scope of this version has (see :data:`NAME_KEY`), once known.
        self._name: str | None = None

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        name = ctx.data.get(NAME_KEY)
        if name is None:
            name = self.name_of(ctx, props)
            ctx.data.set(NAME_KEY, name)
        self._name = name
        fields: dict[str, Any] = {
            "name": name,
            "ip_version": props["ip_version"],
            "is_shared": props["shared"],
        }
        if props.get("tenant_id"):
            fields["project_id"] = props["tenant_id"]
        made = refused_forgets(
            ctx,
            [NAME_KEY],
            lambda: self.create_tagged(
                ctx,
                lambda tag: self.call(
                    ctx, lambda conn: conn.network.create_address_scope(**fields), idempotent=False
                ),
            ),
        )
        ctx.set_physical_id(made.id)
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        fields: dict[str, Any] = {}
        if "name" in changed:
            fields["name"] = self.name_of(ctx, new_props)
            ctx.data.set(NAME_KEY, fields["name"])
        if "shared" in changed:
            fields["is_shared"] = new_props["shared"]
        self.change(ctx, fields)
        return None

    def physical_or_orphan(self, ctx: ResourceContext) -> str | None:
        self._name = ctx.data.get(NAME_KEY)
        return super().physical_or_orphan(ctx)

    def created_with(self, client: CloudClient, tag: str) -> Any:
        name = self._name
        if name is None:
            return None
        return first(
            client.call(
                lambda conn: list(
                    conn.network.address_scopes(name=name, project_id=conn.current_project_id)
                )
            )
        )

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        return {}
