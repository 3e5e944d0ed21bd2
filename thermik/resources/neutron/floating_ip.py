"""``OS::Neutron::FloatingIP``: an address of an external network, optionally on a port."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from thermik.errors import PropertyError
from thermik.resources.constraints import CustomConstraint
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.neutron.base import NeutronResource
from thermik.resources.neutron.common import body, old_name, resolve
from thermik.resources.neutron.implied import floating_ip_requirements
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    CacheMode,
    PropertiesSchema,
    PropertySchema,
    Type,
)
from thermik.resources.stack_view import StackView

#: Properties sent to Neutron as they are named.
_SENT = ("port_id", "fixed_ip_address", "floating_ip_address", "dns_name", "dns_domain")


class FloatingIP(NeutronResource):
    """``OS::Neutron::FloatingIP``."""

    kind: ClassVar[str] = "ip"
    plural: ClassVar[str] = "ips"

    renamed_properties: ClassVar[Mapping[str, str]] = {"floating_network_id": "floating_network"}

    properties_schema: ClassVar[PropertiesSchema] = {
        "floating_network_id": old_name(
            "floating_network",
            "5.0.0",
            "2014.2",
            constraints=(CustomConstraint("neutron.network"),),
        ),
        "floating_network": PropertySchema(
            Type.STRING,
            "The name or ID of the network to take the address from.",
            required=True,
            constraints=(CustomConstraint("neutron.network"),),
        ),
        "floating_subnet": PropertySchema(
            Type.STRING,
            "The name or ID of the subnet to take the address from.",
            constraints=(CustomConstraint("neutron.subnet"),),
        ),
        "value_specs": PropertySchema(
            Type.MAP,
            'Extra parameters of the "floatingip" object of the create request, for '
            "hardware or extensions the schema does not name.",
            default={},
        ),
        "port_id": PropertySchema(
            Type.STRING,
            "The ID of an existing port, with at least one IP address, to associate the "
            "address with.",
            update_allowed=True,
            constraints=(CustomConstraint("neutron.port"),),
        ),
        "fixed_ip_address": PropertySchema(
            Type.STRING,
            "Which address of the port to use, when it has several.",
            update_allowed=True,
            constraints=(CustomConstraint("ip_addr"),),
        ),
        "floating_ip_address": PropertySchema(
            Type.STRING,
            "The floating address wanted (by default policy, for administrators only).",
            constraints=(CustomConstraint("ip_addr"),),
        ),
        "dns_name": PropertySchema(
            Type.STRING,
            "The DNS name of the floating IP.",
            update_allowed=True,
            constraints=(CustomConstraint("rel_dns_name"),),
        ),
        "dns_domain": PropertySchema(
            Type.STRING,
            "The DNS domain of the floating IP.",
            update_allowed=True,
            constraints=(CustomConstraint("dns_domain"),),
        ),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "router_id": AttributeSchema(
            "The ID of the router the address is reached through, once on a port.",
            type=AttributeType.STRING,
        ),
        "tenant_id": AttributeSchema(
            "The project owning the floating IP.", type=AttributeType.STRING
        ),
        "floating_network_id": AttributeSchema(
            "The ID of the network the address belongs to.", type=AttributeType.STRING
        ),
        "fixed_ip_address": AttributeSchema(
            "The port's address the floating IP maps to, if any.",
            type=AttributeType.STRING,
            cache_mode=CacheMode.NONE,
        ),
        "floating_ip_address": AttributeSchema("The floating address.", type=AttributeType.STRING),
        "port_id": AttributeSchema(
            "The ID of the port of the floating IP, if any.",
            type=AttributeType.STRING,
            cache_mode=CacheMode.NONE,
        ),
    }

    @classmethod
    def implied_requirements(cls, name: str, stack: StackView) -> Iterable[str]:
        return floating_ip_requirements(name, stack)

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        if props.get("port_id") is None and props.get("fixed_ip_address") is not None:
            raise PropertyError(
                "fixed_ip_address needs port_id: the address is one of the port's",
                path=("properties", "fixed_ip_address"),
            )

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        fields = body(ctx, props, _SENT)
        fields["floating_network_id"] = resolve(ctx, "neutron.network", props["floating_network"])
        if props.get("floating_subnet"):
            fields["subnet_id"] = resolve(ctx, "neutron.subnet", props["floating_subnet"])
        self.make(ctx, props, fields)
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        # The port and its address go together: a new port clears an address of the old.
        fields: dict[str, Any] = {}
        if changed & {"port_id", "fixed_ip_address"}:
            fields["port_id"] = new_props.get("port_id")
            fields["fixed_ip_address"] = new_props.get("fixed_ip_address")
        fields.update({k: new_props.get(k) for k in ("dns_name", "dns_domain") if k in changed})
        self.change(ctx, fields)
        return None

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        return {
            "router_id": found.router_id,
            "tenant_id": found.project_id,
            "floating_network_id": found.floating_network_id,
            "fixed_ip_address": found.fixed_ip_address,
            "floating_ip_address": found.floating_ip_address,
            "port_id": found.port_id,
        }
