"""``OS::Neutron::Net``: a Neutron network."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.resources.cloud_access import find
from thermik.resources.cloud_resource import CloudResource
from thermik.resources.constraints import CustomConstraint
from thermik.resources.context import ResourceContext, physical_resource_name
from thermik.resources.neutron.common import (
    TAGS,
    VALUE_SPECS,
    body,
    first,
    set_user_tags,
)
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    PropertiesSchema,
    PropertySchema,
    Type,
)

#: Properties sent to Neutron as they are named.
_SENT = ("admin_state_up", "shared", "port_security_enabled", "dns_domain")


class Net(CloudResource):
    """``OS::Neutron::Net``."""

    service: ClassVar[str] = "neutron"

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(
            Type.STRING,
            "A string specifying a symbolic name for the network, which is not required to be "
            "unique.",
            update_allowed=True,
        ),
        "value_specs": VALUE_SPECS,
        "admin_state_up": PropertySchema(
            Type.BOOLEAN,
            "A boolean value specifying the administrative status of the network.",
            default=True,
            update_allowed=True,
        ),
        "tenant_id": PropertySchema(
            Type.STRING,
            "The ID of the tenant which will own the network. Only administrative users can "
            "set the tenant identifier; this cannot be changed using authorization policies.",
        ),
        "shared": PropertySchema(
            Type.BOOLEAN,
            "Whether this network should be shared across all tenants. Note that the default "
            "policy setting restricts usage of this attribute to administrative users only.",
            default=False,
            update_allowed=True,
        ),
        "dhcp_agent_ids": PropertySchema(
            Type.LIST,
            "The IDs of the DHCP agent to schedule the network. Note that the default policy "
            "setting in Neutron restricts usage of this property to administrative users only.",
            update_allowed=True,
        ),
        "port_security_enabled": PropertySchema(
            Type.BOOLEAN,
            "Flag to enable/disable port security on the network. It provides the default "
            "value for the attribute of the ports created on this network.",
            update_allowed=True,
        ),
        "qos_policy": PropertySchema(
            Type.STRING,
            "The name or ID of QoS policy to attach to this network.",
            constraints=(CustomConstraint("neutron.qos_policy"),),
            update_allowed=True,
        ),
        "dns_domain": PropertySchema(
            Type.STRING,
            "DNS domain associated with this network.",
            update_allowed=True,
        ),
        "tags": TAGS,
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "status": AttributeSchema("The status of the network.", type=AttributeType.STRING),
        "name": AttributeSchema("The name of the network.", type=AttributeType.STRING),
        "subnets": AttributeSchema("Subnets of this network.", type=AttributeType.LIST),
        "admin_state_up": AttributeSchema(
            "The administrative status of the network.", type=AttributeType.STRING
        ),
        "tenant_id": AttributeSchema("The tenant owning this network.", type=AttributeType.STRING),
        "port_security_enabled": AttributeSchema(
            "Port security enabled of the network.", type=AttributeType.BOOLEAN
        ),
        "mtu": AttributeSchema(
            "The maximum transmission unit size(in bytes) for the network.",
            type=AttributeType.INTEGER,
        ),
        "qos_policy_id": AttributeSchema(
            "The QoS policy ID attached to this network.", type=AttributeType.STRING
        ),
        "l2_adjacency": AttributeSchema(
            "A boolean value for L2 adjacency, True means that you can expect L2 "
            "connectivity throughout the Network.",
            type=AttributeType.BOOLEAN,
        ),
        "segments": AttributeSchema("The segments of this network.", type=AttributeType.LIST),
    }

    def _body(
        self, ctx: ResourceContext, props: Props, names: Iterable[str], *, update: bool
    ) -> dict[str, Any]:
        """What to send for properties ``names`` (an update also sends a removed policy)."""
        names = frozenset(names)
        out = body(ctx, props, [n for n in _SENT if n in names], specs="value_specs" in names)
        if "tenant_id" in names and props.get("tenant_id"):
            out["project_id"] = props["tenant_id"]
        policy = props.get("qos_policy")
        if "qos_policy" in names and (policy or update):
            out["qos_policy_id"] = find(ctx, "neutron.qos_policy", policy) if policy else None
        return out

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        fields = self._body(ctx, props, self.properties_schema, update=False)
        fields["name"] = props.get("name") or physical_resource_name(ctx)
        network = self.create_tagged(
            ctx,
            lambda tag: self.call(
                ctx, lambda conn: conn.network.create_network(**fields, description=tag)
            ),
        )
        ctx.set_physical_id(network.id)
        if props.get("tags"):
            network = self.call(ctx, lambda conn: set_user_tags(conn, network, props["tags"]))
        self.seen(network)
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        assert ctx.physical_id is not None
        fields = self._body(ctx, new_props, changed, update=True)
        if "name" in changed:
            fields["name"] = new_props.get("name") or physical_resource_name(ctx)
        physical_id = ctx.physical_id
        self.seen(self.call(ctx, lambda conn: conn.network.update_network(physical_id, **fields)))
        if "tags" in changed:
            tags = new_props.get("tags")
            self.seen(self.call(ctx, lambda conn: set_user_tags(conn, self._seen, tags)))
        return None

    def created_with(self, client: CloudClient, tag: str) -> Any:
        return first(client.call(lambda conn: conn.network.networks(description=tag)))

    def fetch(self, client: CloudClient, physical_id: str) -> Any:
        return client.call(lambda conn: conn.network.get_network(physical_id))

    def remove(self, client: CloudClient, physical_id: str) -> None:
        client.call(lambda conn: conn.network.delete_network(physical_id, ignore_missing=False))

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        return {
            "status": found.status,
            "name": found.name,
            "subnets": list(found.subnet_ids or []),
            "admin_state_up": found.is_admin_state_up,
            "tenant_id": found.project_id,
            "port_security_enabled": found.is_port_security_enabled,
            "mtu": found.mtu,
            "qos_policy_id": found.qos_policy_id,
            "l2_adjacency": _extra(found, "l2_adjacency"),
            "segments": list(found.segments or []),
        }


def _extra(found: Any, name: str) -> Any:
    """A field openstacksdk's resource does not declare, as the cloud sent it."""
    return found.to_dict(computed=False).get(name) if hasattr(found, "to_dict") else None
