"""``OS::Neutron::Subnet``: an IP address block on a Neutron network."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from thermik.errors import PropertyError
from thermik.resources.constraints import AllowedValues, CustomConstraint, Range
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.neutron.base import NeutronResource, without_none
from thermik.resources.neutron.common import TAGS, VALUE_SPECS, body, old_name, resolve
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    PropertiesSchema,
    PropertySchema,
    Type,
)

_IPV6_MODES = ("dhcpv6-stateful", "dhcpv6-stateless", "slaac")
#: Properties sent to Neutron as they are named.
_SENT = (
    "name",
    "prefixlen",
    "cidr",
    "ip_version",
    "dns_nameservers",
    "enable_dhcp",
    "allocation_pools",
    "host_routes",
    "ipv6_ra_mode",
    "ipv6_address_mode",
)
_BOTH = "Cannot define the following properties at the same time: "
_ONE_OF = "At least one of the following properties must be specified: "
#: Values of ``gateway_ip`` that ask for a subnet without a gateway.
NO_GATEWAY = ("", "~")
#: The value of ``gateway_ip`` that lets Neutron pick the gateway (as leaving it out does).
AUTO_GATEWAY = "auto"


def _pair(first: str, first_doc: str, first_kind: str, second: str, second_doc: str) -> Any:
    return PropertySchema(
        Type.MAP,
        schema={
            first: PropertySchema(
                Type.STRING,
                first_doc,
                required=True,
                constraints=(CustomConstraint(first_kind),),
            ),
            second: PropertySchema(
                Type.STRING,
                second_doc,
                required=True,
                constraints=(CustomConstraint("ip_addr"),),
            ),
        },
    )


class Subnet(NeutronResource):
    """``OS::Neutron::Subnet``."""

    kind: ClassVar[str] = "subnet"
    plural: ClassVar[str] = "subnets"

    renamed_properties: ClassVar[Mapping[str, str]] = {"network_id": "network"}

    properties_schema: ClassVar[PropertiesSchema] = {
        "network_id": old_name(
            "network", "5.0.0", "2014.2", constraints=(CustomConstraint("neutron.network"),)
        ),
        "network": PropertySchema(
            Type.STRING,
            "The name or ID of the network the subnet belongs to.",
            required=True,
            constraints=(CustomConstraint("neutron.network"),),
        ),
        "subnetpool": PropertySchema(
            Type.STRING,
            "The name or ID of the subnet pool to allocate the subnet from.",
            constraints=(CustomConstraint("neutron.subnetpool"),),
        ),
        "prefixlen": PropertySchema(
            Type.INTEGER,
            "The prefix length of a subnet allocated from a subnet pool.",
            constraints=(Range(min=0),),
        ),
        "cidr": PropertySchema(
            Type.STRING, "The CIDR.", constraints=(CustomConstraint("net_cidr"),)
        ),
        "value_specs": VALUE_SPECS,
        "name": PropertySchema(Type.STRING, "The name of the subnet.", update_allowed=True),
        "ip_version": PropertySchema(
            Type.INTEGER,
            "The IP version, 4 or 6.",
            default=4,
            constraints=(AllowedValues((4, 6)),),
        ),
        "dns_nameservers": PropertySchema(
            Type.LIST,
            "The DNS name servers of the subnet.",
            default=[],
            update_allowed=True,
        ),
        "gateway_ip": PropertySchema(
            Type.STRING,
            'The gateway IP address. "" or "~" makes (or updates) the subnet without a '
            "gateway; left out at creation, Neutron picks the first free address; removed at "
            "an update, the gateway is detached.",
            update_allowed=True,
        ),
        "enable_dhcp": PropertySchema(
            Type.BOOLEAN,
            "Whether DHCP is enabled on the subnet.",
            default=True,
            update_allowed=True,
        ),
        "allocation_pools": PropertySchema(
            Type.LIST,
            "The start and end addresses of the allocation pools.",
            schema=_pair(
                "start",
                "The first address of the pool.",
                "ip_addr",
                "end",
                "The last address of the pool.",
            ),
            update_allowed=True,
        ),
        "tenant_id": PropertySchema(
            Type.STRING,
            "The ID of the project owning the subnet; only administrators may name another "
            "project than their own.",
        ),
        "host_routes": PropertySchema(
            Type.LIST,
            "Host routes of the subnet.",
            schema=_pair(
                "destination",
                "The destination of the static route (a CIDR).",
                "net_cidr",
                "nexthop",
                "The next hop towards the destination.",
            ),
            update_allowed=True,
        ),
        "ipv6_ra_mode": PropertySchema(
            Type.STRING,
            "The IPv6 router advertisement mode.",
            constraints=(AllowedValues(_IPV6_MODES),),
        ),
        "ipv6_address_mode": PropertySchema(
            Type.STRING,
            "The IPv6 address mode.",
            constraints=(AllowedValues(_IPV6_MODES),),
        ),
        "segment": PropertySchema(
            Type.STRING,
            "The name or ID of the network segment to associate the subnet with.",
            constraints=(CustomConstraint("neutron.segment"),),
            update_allowed=True,
        ),
        "tags": TAGS,
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "name": AttributeSchema("The name of the subnet.", type=AttributeType.STRING),
        "network_id": AttributeSchema(
            "The network the subnet belongs to.", type=AttributeType.STRING
        ),
        "tenant_id": AttributeSchema("The project owning the subnet.", type=AttributeType.STRING),
        "allocation_pools": AttributeSchema(
            "The IP allocation pools of the subnet.", type=AttributeType.LIST
        ),
        "gateway_ip": AttributeSchema(
            "The IP address of the subnet's gateway.", type=AttributeType.STRING
        ),
        "host_routes": AttributeSchema(
            "The additional routes of the subnet.", type=AttributeType.LIST
        ),
        "ip_version": AttributeSchema("The IP version of the subnet.", type=AttributeType.STRING),
        "cidr": AttributeSchema("The subnet's block in CIDR notation.", type=AttributeType.STRING),
        "dns_nameservers": AttributeSchema(
            "The DNS name servers of the subnet.", type=AttributeType.LIST
        ),
        "enable_dhcp": AttributeSchema(
            "Whether DHCP is enabled on the subnet.", type=AttributeType.STRING
        ),
    }

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        problem = subnet_problem(props, vctx)
        if problem is not None:
            raise PropertyError(problem[1], path=("properties", problem[0]))

    def _body(self, ctx: ResourceContext, props: Props, names: Iterable[str]) -> dict[str, Any]:
        names = frozenset(names)
        out = body(ctx, props, [n for n in _SENT if n in names], specs="value_specs" in names)
        for key in ("allocation_pools", "host_routes"):
            if key in out:
                out[key] = [without_none(item) for item in out[key]]
        if "tenant_id" in names and props.get("tenant_id"):
            out["project_id"] = props["tenant_id"]
        for name, kind, field in (
            ("subnetpool", "neutron.subnetpool", "subnetpool_id"),
            ("segment", "neutron.segment", "segment_id"),
        ):
            if name in names and props.get(name):
                out[field] = resolve(ctx, kind, props[name])
        return out

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        fields = self._body(ctx, props, self.properties_schema)
        fields["name"] = self.name_of(ctx, props)
        fields["network_id"] = resolve(ctx, "neutron.network", props["network"])
        gateway = gateway_field(props.get("gateway_ip"), creating=True)
        fields.update(gateway)
        self.make(ctx, props, fields)
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        fields = self._body(ctx, new_props, changed)
        if "name" in changed:
            fields["name"] = self.name_of(ctx, new_props)
        if "allocation_pools" in changed and new_props.get("allocation_pools") is None:
            fields["allocation_pools"] = []
        if "gateway_ip" in changed:
            fields.update(gateway_field(new_props.get("gateway_ip"), creating=False))
        self.change(ctx, fields, new_props.get("tags"), set_tags="tags" in changed)
        return None

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        return {
            "name": found.name,
            "network_id": found.network_id,
            "tenant_id": found.project_id,
            "allocation_pools": list(found.allocation_pools or []),
            "gateway_ip": found.gateway_ip,
            "host_routes": list(found.host_routes or []),
            "ip_version": found.ip_version,
            "cidr": found.cidr,
            "dns_nameservers": list(found.dns_nameservers or []),
            "enable_dhcp": found.is_dhcp_enabled,
        }


def gateway_field(value: str | None, *, creating: bool) -> dict[str, Any]:
    """What a create or update sends for ``gateway_ip``: nothing (Neutron picks), ``None``
    (no gateway) or the address.

    Raises:
        PropertyError: ``auto`` in an update (only a create may let Neutron pick).
    """
    if value is None or value == AUTO_GATEWAY:
        if value == AUTO_GATEWAY and not creating:
            raise PropertyError(
                'The value "auto" for gateway_ip can only be used when the subnet is '
                "created, not to update it.",
                path=("properties", "gateway_ip"),
            )
        return {} if creating else {"gateway_ip": None}
    return {"gateway_ip": None if value in NO_GATEWAY else value}


def subnet_problem(props: Props, vctx: ValidationContext) -> tuple[str, str] | None:
    """The first inconsistency of a subnet's properties, as (property, message)."""
    known = {k: v for k, v in props.items() if not vctx.unresolved(v)}
    pool, cidr, prefixlen = known.get("subnetpool"), known.get("cidr"), known.get("prefixlen")
    unresolved = any(vctx.unresolved(props.get(k)) for k in ("subnetpool", "cidr"))
    if pool is not None and cidr:
        return "subnetpool", f"{_BOTH}subnetpool, cidr"
    if pool is None and not cidr and not unresolved:
        return "cidr", f"{_ONE_OF}subnetpool, cidr"
    if prefixlen and cidr:
        return "prefixlen", f"{_BOTH}prefixlen, cidr"
    ra, address = known.get("ipv6_ra_mode"), known.get("ipv6_address_mode")
    if known.get("ip_version") == 4 and (ra or address):
        return "ip_version", "ipv6_ra_mode and ipv6_address_mode are not supported for ipv4."
    if ra and address and ra != address:
        return (
            "ipv6_ra_mode",
            "When both ipv6_ra_mode and ipv6_address_mode are set, they must be equal.",
        )
    gateway = known.get("gateway_ip")
    if gateway and gateway not in (*NO_GATEWAY, AUTO_GATEWAY) and not _is_ip(gateway):
        return "gateway_ip", f'Gateway IP address "{gateway}" is in invalid format.'
    return None


def _is_ip(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True
