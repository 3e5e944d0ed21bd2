"""``OS::Neutron::ProviderNet``: a network on the cloud's physical fabric (for administrators).

Its network type, physical network and segment are Neutron's ``provider:`` fields; Neutron
changes them only while the network has no ports, and refuses otherwise (the update fails
with its answer).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from thermik.errors import PropertyError
from thermik.resources.constraints import AllowedValues
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.neutron.base import NeutronResource
from thermik.resources.neutron.common import TAGS
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

#: Heat's property names, and openstacksdk's names of the fields they set.
_FIELDS = {
    "network_type": "provider_network_type",
    "physical_network": "provider_physical_network",
    "segmentation_id": "provider_segmentation_id",
    "admin_state_up": "is_admin_state_up",
    "shared": "is_shared",
    "port_security_enabled": "is_port_security_enabled",
    "router_external": "is_router_external",
    "dns_domain": "dns_domain",
}
#: The network types that need a physical network.
PHYSICAL = ("flat", "vlan")


class ProviderNet(NeutronResource):
    """``OS::Neutron::ProviderNet``."""

    kind: ClassVar[str] = "network"
    plural: ClassVar[str] = "networks"
    support_status = SupportStatus(version="2014.1")

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(
            Type.STRING,
            "A string specifying a symbolic name for the network, which is not required to be "
            "unique.",
            update_allowed=True,
        ),
        "network_type": PropertySchema(
            Type.STRING,
            "A string specifying the provider network type for the network.",
            required=True,
            update_allowed=True,
            constraints=(AllowedValues(("local", "vlan", "vxlan", "gre", "geneve", "flat")),),
        ),
        "physical_network": PropertySchema(
            Type.STRING,
            "A string specifying physical network mapping for the network.",
            update_allowed=True,
        ),
        "segmentation_id": PropertySchema(
            Type.STRING,
            "A string specifying the segmentation id for the network.",
            update_allowed=True,
        ),
        "admin_state_up": PropertySchema(
            Type.BOOLEAN,
            "A boolean value specifying the administrative status of the network.",
            default=True,
            update_allowed=True,
        ),
        "shared": PropertySchema(
            Type.BOOLEAN,
            "Whether this network should be shared across all tenants.",
            default=True,
            update_allowed=True,
        ),
        "port_security_enabled": PropertySchema(
            Type.BOOLEAN,
            "Flag to enable/disable port security on the network. It provides the default "
            "value for the attribute of the ports created on this network.",
            update_allowed=True,
        ),
        "router_external": PropertySchema(
            Type.BOOLEAN,
            "Whether the network contains an external router.",
            default=False,
            update_allowed=True,
        ),
        "dns_domain": PropertySchema(
            Type.STRING, "DNS domain associated with this network.", update_allowed=True
        ),
        "tags": TAGS,
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "status": AttributeSchema("The status of the network.", type=AttributeType.STRING),
        "subnets": AttributeSchema("Subnets of this network.", type=AttributeType.LIST),
    }

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        kind = props.get("network_type")
        if vctx.unresolved(kind) or vctx.unresolved(props.get("physical_network")):
            return
        if kind in PHYSICAL and not props.get("physical_network"):
            raise PropertyError(
                f"physical_network is required for {kind} provider network.",
                path=("properties", "physical_network"),
            )
        if kind == "flat" and props.get("segmentation_id") is not None:
            raise PropertyError(
                "segmentation_id not allowed for flat network type.",
                path=("properties", "segmentation_id"),
            )

    def _body(self, props: Props, names: Iterable[str]) -> dict[str, Any]:
        out = {_FIELDS[n]: props[n] for n in names if n in _FIELDS and props.get(n) is not None}
        if "provider_segmentation_id" in out:
            out["provider_segmentation_id"] = int(out["provider_segmentation_id"])
        return out

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        fields = self._body(props, self.properties_schema)
        fields["name"] = self.name_of(ctx, props)
        self.make(ctx, props, fields)
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        fields = self._body(new_props, changed)
        if "name" in changed:
            fields["name"] = self.name_of(ctx, new_props)
        self.change(ctx, fields, new_props.get("tags"), set_tags="tags" in changed)
        return None

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        return {"status": found.status, "subnets": list(found.subnet_ids or [])}
