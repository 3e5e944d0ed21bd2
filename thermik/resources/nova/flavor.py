"""``OS::Nova::Flavor``: a Nova flavor (Nova lets only administrators make them by default)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.resources.cloud_access import find
from thermik.resources.cloud_resource import CloudResource
from thermik.resources.constraints import CustomConstraint
from thermik.resources.context import ResourceContext, physical_resource_name
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

#: Properties sent to Nova's create as they are named.
_SENT = ("ram", "vcpus", "disk", "swap", "ephemeral", "rxtx_factor", "is_public")


class Flavor(CloudResource):
    """``OS::Nova::Flavor``.

    The creation tag goes in the flavor's description (Nova API 2.55 and later), which is how
    an interrupted create finds what it made. A private flavor is opened to ``tenants``, or to
    the stack's own project when none is given, as Heat does.
    """

    service: ClassVar[str] = "nova"
    support_status = SupportStatus(version="2014.2")

    properties_schema: ClassVar[PropertiesSchema] = {
        "tenants": PropertySchema(
            Type.LIST,
            "Projects (names or ids) a private flavor is open to.",
            default=[],
            schema=PropertySchema(
                Type.STRING, constraints=(CustomConstraint("keystone.project"),)
            ),
            update_allowed=True,
            support_status=SupportStatus(version="8.0.0"),
        ),
        "flavorid": PropertySchema(
            Type.STRING,
            "The flavor's unique id; Nova generates a UUID when none is given.",
            support_status=SupportStatus(version="7.0.0"),
        ),
        "name": PropertySchema(
            Type.STRING,
            "The flavor's name (default: a name unique to the resource).",
            support_status=SupportStatus(version="7.0.0"),
        ),
        "ram": PropertySchema(Type.INTEGER, "Memory in MB.", required=True),
        "vcpus": PropertySchema(Type.INTEGER, "Number of virtual CPUs.", required=True),
        "disk": PropertySchema(
            Type.INTEGER,
            "Root disk size in GB; 0 means the image's own size.",
            default=0,
        ),
        "swap": PropertySchema(Type.INTEGER, "Swap space in MB.", default=0),
        "ephemeral": PropertySchema(
            Type.INTEGER, "Size of a secondary ephemeral disk in GB.", default=0
        ),
        "rxtx_factor": PropertySchema(Type.NUMBER, "RX/TX factor.", default=1.0),
        "extra_specs": PropertySchema(
            Type.MAP,
            "Key/value pairs extending the flavor's capabilities.",
            update_allowed=True,
        ),
        "is_public": PropertySchema(
            Type.BOOLEAN,
            "Whether every project may use the flavor (else only the listed tenants).",
            default=True,
            support_status=SupportStatus(version="6.0.0"),
        ),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "is_public": AttributeSchema(
            "Whether the flavor is shared across all projects.",
            type=AttributeType.BOOLEAN,
            support_status=SupportStatus(version="6.0.0"),
        ),
        "extra_specs": AttributeSchema(
            "The flavor's extra specs, as key/value pairs.",
            type=AttributeType.MAP,
            support_status=SupportStatus(version="7.0.0"),
        ),
    }

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        fields: dict[str, Any] = {n: props[n] for n in _SENT if props.get(n) is not None}
        fields["name"] = props.get("name") or physical_resource_name(ctx)
        if props.get("flavorid"):
            fields["id"] = props["flavorid"]
        flavor = self.create_tagged(
            ctx,
            lambda tag: self.call(
                ctx,
                lambda conn: conn.compute.create_flavor(**fields, description=tag),
                idempotent=False,
            ),
        )
        ctx.set_physical_id(flavor.id)
        specs = props.get("extra_specs")
        if specs:
            self.call(
                ctx, lambda conn: conn.compute.create_flavor_extra_specs(flavor, _strings(specs))
            )
        if not props["is_public"]:
            self._open_to(ctx, flavor.id, self._tenants(ctx, props), ())
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        assert ctx.physical_id is not None
        flavor_id = ctx.physical_id
        if "extra_specs" in changed:
            self.call(ctx, lambda conn: _replace_specs(conn, flavor_id, new_props["extra_specs"]))
        if "tenants" in changed and not new_props["is_public"]:
            granted = self.call(
                ctx,
                lambda conn: [a["tenant_id"] for a in conn.compute.get_flavor_access(flavor_id)],
            )
            self._open_to(ctx, flavor_id, self._tenants(ctx, new_props), granted)
        return None

    def _tenants(self, ctx: ResourceContext, props: Props) -> list[str]:
        """The project ids a private flavor is open to."""
        names = props.get("tenants") or []
        if names:
            return [find(ctx, "keystone.project", name) for name in names]
        return [self.call(ctx, lambda conn: str(conn.current_project_id))]

    def _open_to(
        self, ctx: ResourceContext, flavor_id: str, wanted: list[str], granted: Any
    ) -> None:
        have = set(granted)
        added, removed = sorted(set(wanted) - have), sorted(have - set(wanted))
        self.call_each(
            ctx, added, lambda conn, p: conn.compute.flavor_add_tenant_access(flavor_id, p)
        )
        self.call_each(
            ctx, removed, lambda conn, p: conn.compute.flavor_remove_tenant_access(flavor_id, p)
        )

    def created_with(self, client: CloudClient, tag: str) -> Any:
        return client.call(
            lambda conn: next(
                (f for f in conn.compute.flavors(is_public=None) if f.description == tag), None
            )
        )

    def fetch(self, client: CloudClient, physical_id: str) -> Any:
        return client.call(lambda conn: conn.compute.get_flavor(physical_id, get_extra_specs=True))

    def remove(self, client: CloudClient, physical_id: str) -> None:
        client.call(lambda conn: conn.compute.delete_flavor(physical_id, ignore_missing=False))

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        return {"is_public": found.is_public, "extra_specs": dict(found.extra_specs or {})}


def _replace_specs(conn: Any, flavor_id: str, specs: Mapping[str, Any] | None) -> None:
    """Make the flavor's extra specs exactly ``specs`` (as Heat: unset all, set the new)."""
    for key in conn.compute.fetch_flavor_extra_specs(flavor_id).extra_specs or {}:
        conn.compute.delete_flavor_extra_specs_property(flavor_id, key)
    if specs:
        conn.compute.create_flavor_extra_specs(flavor_id, _strings(specs))


def _strings(specs: Mapping[str, Any]) -> dict[str, str]:
    """Extra specs as Nova takes them: every value a string (a template may write numbers)."""
    return {key: value if isinstance(value, str) else str(value) for key, value in specs.items()}
