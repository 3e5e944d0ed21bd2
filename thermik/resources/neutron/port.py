"""``OS::Neutron::Port``: a port on a Neutron network, what a server's interface plugs into."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from thermik.errors import PropertyError
from thermik.resources.constraints import AllowedValues, CustomConstraint, CustomValidator
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.neutron.base import NeutronResource, renamed, without_none
from thermik.resources.neutron.common import TAGS, VALUE_SPECS, body, moved, old_name, resolve
from thermik.resources.neutron.implied import port_requirements
from thermik.resources.plugin import NeedsReplacement, Progress, Props
from thermik.resources.properties import Unresolved, never_unresolved
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    PropertiesSchema,
    PropertySchema,
    SupportLevel,
    SupportStatus,
    Type,
)
from thermik.resources.stack_view import StackView

VNIC_TYPES = (
    "normal",
    "direct",
    "macvtap",
    "direct-physical",
    "baremetal",
    "virtio-forwarder",
    "smart-nic",
)
#: Properties sent to Neutron as they are named.
_SENT = (
    "name",
    "device_id",
    "device_owner",
    "dns_name",
    "admin_state_up",
    "mac_address",
    "binding:vnic_type",
    "port_security_enabled",
    "propagate_uplink_status",
)


_SUBNET = CustomConstraint("neutron.subnet")


def _string(doc: str, *, update: bool = True, **kwargs: Any) -> PropertySchema:
    return PropertySchema(Type.STRING, doc, update_allowed=update, **kwargs)


class Port(NeutronResource):
    """``OS::Neutron::Port``."""

    kind: ClassVar[str] = "port"
    plural: ClassVar[str] = "ports"
    has_status: ClassVar[bool] = True

    renamed_properties: ClassVar[Mapping[str, str]] = {"network_id": "network"}
    #: A Neutron request each: only when something reads them.
    lazy_attributes: ClassVar[frozenset[str]] = frozenset({"subnets", "network"})

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": _string("A symbolic name for the port."),
        "network_id": old_name(
            "network", "5.0.0", "2014.2", constraints=(CustomConstraint("neutron.network"),)
        ),
        "network": _string(
            "The name or ID of the network of the port; a different network replaces the "
            "port. A port meant for a floating IP should name its subnet in fixed_ips.",
            update=False,
            required=True,
            constraints=(CustomConstraint("neutron.network"),),
        ),
        "device_id": _string("The ID of the device using the port.", default=""),
        "device_owner": _string(
            "The kind of device owning the port (network:floatingip, "
            "network:router_interface, network:dhcp ...).",
            default="",
        ),
        "fixed_ips": PropertySchema(
            Type.LIST,
            "The IP addresses the port asks for.",
            schema=PropertySchema(
                Type.MAP,
                schema={
                    "subnet_id": old_name(
                        "subnet",
                        "5.0.0",
                        "2014.2",
                        constraints=(CustomConstraint("neutron.subnet"),),
                    ),
                    "subnet": _string(
                        "The subnet to take the address from.",
                        update=False,
                        constraints=(CustomConstraint("neutron.subnet"),),
                    ),
                    "ip_address": _string(
                        "The address wanted in the subnet.",
                        update=False,
                        constraints=(CustomConstraint("ip_addr"),),
                    ),
                },
            ),
            update_allowed=True,
        ),
        "security_groups": PropertySchema(
            Type.LIST,
            "The names or IDs of the security groups of the port.",
            update_allowed=True,
        ),
        "replacement_policy": _string(
            "REPLACE_ALWAYS replaces the port at every stack update; AUTO updates it in place "
            "where its changed properties allow.",
            default="AUTO",
            constraints=(AllowedValues(("REPLACE_ALWAYS", "AUTO")),),
            support_status=SupportStatus(
                SupportLevel.HIDDEN,
                version="9.0.0",
                previous=SupportStatus(
                    SupportLevel.DEPRECATED,
                    version="6.0.0",
                    message="A work-around for Nova and Neutron port handling fixed since "
                    "Liberty.",
                ),
            ),
        ),
        "dns_name": _string(
            "The DNS name of the port.", constraints=(CustomConstraint("dns_name"),)
        ),
        "tags": TAGS,
        "value_specs": VALUE_SPECS,
        "admin_state_up": PropertySchema(
            Type.BOOLEAN,
            "The administrative state of the port.",
            default=True,
            update_allowed=True,
        ),
        # Changed in place, as in Heat (Neutron's default policy lets administrators only).
        "mac_address": _string(
            "The MAC address of the port (by default policy, changing it is for "
            "administrators only).",
            constraints=(CustomConstraint("mac_addr"),),
        ),
        "allowed_address_pairs": PropertySchema(
            Type.LIST,
            "Further MAC/IP address pairs allowed through the port.",
            schema=PropertySchema(
                Type.MAP,
                schema={
                    "mac_address": _string(
                        "The MAC address to allow.",
                        update=False,
                        constraints=(CustomConstraint("mac_addr"),),
                    ),
                    "ip_address": _string(
                        "The IP address or CIDR to allow.",
                        update=False,
                        required=True,
                        constraints=(CustomConstraint("ip_or_cidr"),),
                    ),
                },
            ),
            update_allowed=True,
        ),
        "binding:vnic_type": _string(
            "The VNIC type to bind the port with: normal (a virtual NIC), direct (PCI "
            "passthrough), macvtap ... (needs the bindings extension).",
            default="normal",
            constraints=(AllowedValues(VNIC_TYPES),),
        ),
        "port_security_enabled": PropertySchema(
            Type.BOOLEAN,
            "Whether port security (security groups, address pairs filtering) applies.",
            update_allowed=True,
        ),
        "qos_policy": _string(
            "The name or ID of the QoS policy of the port.",
            constraints=(CustomConstraint("neutron.qos_policy"),),
        ),
        "propagate_uplink_status": PropertySchema(
            Type.BOOLEAN,
            "Whether the uplink status propagates to the port.",
            update_allowed=True,
        ),
        "no_fixed_ips": PropertySchema(
            Type.BOOLEAN,
            "Whether the port has no fixed IP address at all.",
            default=False,
            update_allowed=True,
        ),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "admin_state_up": AttributeSchema(
            "The administrative state of the port.", type=AttributeType.STRING
        ),
        "device_id": AttributeSchema("The ID of the device.", type=AttributeType.STRING),
        "device_owner": AttributeSchema("What owns the port.", type=AttributeType.STRING),
        "fixed_ips": AttributeSchema("The fixed IP addresses.", type=AttributeType.LIST),
        "mac_address": AttributeSchema("The MAC address.", type=AttributeType.STRING),
        "name": AttributeSchema("The name of the port.", type=AttributeType.STRING),
        "network_id": AttributeSchema("The ID of the network.", type=AttributeType.STRING),
        "security_groups": AttributeSchema(
            "The security groups of the port.", type=AttributeType.LIST
        ),
        "status": AttributeSchema("The status of the port.", type=AttributeType.STRING),
        "tenant_id": AttributeSchema("The project owning the port.", type=AttributeType.STRING),
        "allowed_address_pairs": AttributeSchema(
            "Further MAC/IP address pairs allowed through the port.", type=AttributeType.LIST
        ),
        "subnets": AttributeSchema(
            "The subnets of the port's addresses, in full.", type=AttributeType.LIST
        ),
        "port_security_enabled": AttributeSchema(
            "Whether port security is enabled.", type=AttributeType.BOOLEAN
        ),
        "qos_policy_id": AttributeSchema(
            "The ID of the QoS policy of the port.", type=AttributeType.STRING
        ),
        "dns_assignment": AttributeSchema(
            "The DNS names assigned to the port.", type=AttributeType.MAP
        ),
        "network": AttributeSchema(
            "The port's network, in full (``{get_attr: [port, network, mtu]}``).",
            type=AttributeType.MAP,
        ),
        "propagate_uplink_status": AttributeSchema(
            "Whether the uplink status propagates to the port.", type=AttributeType.BOOLEAN
        ),
    }

    @classmethod
    def implied_requirements(cls, name: str, stack: StackView) -> Iterable[str]:
        return port_requirements(name, stack)

    @classmethod
    def check_properties(
        cls,
        values: Props | None,
        *,
        unresolved: Unresolved = never_unresolved,
        custom_constraints: Mapping[str, CustomValidator] | None = None,
        path: Sequence[str | int] = (),
    ) -> dict[str, Any]:
        ips = values.get("fixed_ips") if isinstance(values, Mapping) else None
        if isinstance(ips, list):
            ips = [
                moved(ip, {"subnet_id": "subnet"}, (*path, "fixed_ips", index))
                for index, ip in enumerate(ips)
            ]
            values = {**(values or {}), "fixed_ips": ips}
        return super().check_properties(
            values, unresolved=unresolved, custom_constraints=custom_constraints, path=path
        )

    def needs_replacement(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> NeedsReplacement | None:
        if new_props.get("replacement_policy") == "REPLACE_ALWAYS":
            return NeedsReplacement("replacement_policy is REPLACE_ALWAYS")
        return super().needs_replacement(ctx, new_props, old_props, changed)

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        if props.get("fixed_ips") and props.get("no_fixed_ips"):
            raise PropertyError(
                "Cannot define the following properties at the same time: fixed_ips, no_fixed_ips",
                path=("properties", "no_fixed_ips"),
            )

    def _body(
        self, ctx: ResourceContext, props: Props, names: Iterable[str], *, update: bool
    ) -> dict[str, Any]:
        names = frozenset(names)
        out = body(ctx, props, [n for n in _SENT if n in names], specs="value_specs" in names)
        if "fixed_ips" in names or "no_fixed_ips" in names:
            out.update(fixed_ips_field(ctx, props, update=update))
        if "allowed_address_pairs" in names:
            pairs = props.get("allowed_address_pairs")
            out["allowed_address_pairs"] = [without_none(p) for p in pairs or []]
        if "security_groups" in names:
            groups = props.get("security_groups")
            if groups is None and update:
                groups = ["default"]
            if groups is not None:
                out["security_group_ids"] = [
                    resolve(ctx, "neutron.security_group", g) for g in groups
                ]
        policy = props.get("qos_policy")
        if "qos_policy" in names and (policy or update):
            out["qos_policy_id"] = resolve(ctx, "neutron.qos_policy", policy) if policy else None
        return renamed(out, {"binding:vnic_type": "binding_vnic_type"})

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        fields = self._body(ctx, props, self.properties_schema, update=False)
        fields["name"] = self.name_of(ctx, props)
        fields["network_id"] = resolve(ctx, "neutron.network", props["network"])
        self.make(ctx, props, fields)
        return self.built(ctx)

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        fields = self._body(ctx, new_props, changed, update=True)
        if "name" in changed:
            fields["name"] = self.name_of(ctx, new_props)
        self.change(ctx, fields, new_props.get("tags"), set_tags="tags" in changed)
        return self.built(ctx)

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        if name == "subnets" and ctx.physical_id is not None:
            ids = [ip["subnet_id"] for ip in self.current(ctx).fixed_ips or []]

            def subnets(conn: Any) -> list[Any]:
                return [conn.network.get_subnet(i).to_dict(computed=False) for i in ids]

            return self.call(ctx, subnets)
        if name == "network" and ctx.physical_id is not None:
            network_id = self.current(ctx).network_id
            found = self.call(ctx, lambda conn: conn.network.get_network(network_id))
            return found.to_dict(computed=False)
        return super().resolve_attribute(ctx, props, name)

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        return {
            "admin_state_up": found.is_admin_state_up,
            "device_id": found.device_id,
            "device_owner": found.device_owner,
            "fixed_ips": list(found.fixed_ips or []),
            "mac_address": found.mac_address,
            "name": found.name,
            "network_id": found.network_id,
            "security_groups": list(found.security_group_ids or []),
            "status": found.status,
            "tenant_id": found.project_id,
            "allowed_address_pairs": list(found.allowed_address_pairs or []),
            "port_security_enabled": found.is_port_security_enabled,
            "qos_policy_id": found.qos_policy_id,
            "dns_assignment": found.dns_assignment,
            "propagate_uplink_status": found.propagate_uplink_status,
        }


def fixed_ips_field(ctx: ResourceContext, props: Props, *, update: bool) -> dict[str, Any]:
    """What to send for ``fixed_ips``: none at all with ``no_fixed_ips``, the subnets (by
    id) and addresses asked for, or (left out) Neutron's choice; an update that removes them
    lets Neutron choose again."""
    if props.get("no_fixed_ips"):
        return {"fixed_ips": []}
    wanted = props.get("fixed_ips")
    if not wanted:
        return {}
    out = []
    for item in wanted:
        entry = without_none(item)
        if "subnet" in entry:
            entry["subnet_id"] = resolve(ctx, "neutron.subnet", entry.pop("subnet"))
        out.append(entry)
    return {"fixed_ips": out}
