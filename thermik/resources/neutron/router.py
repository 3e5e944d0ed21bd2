"""``OS::Neutron::Router``: a Neutron router, with its gateway on an external network."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from thermik.errors import PropertyError
from thermik.resources.constraints import CustomConstraint
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.neutron.base import NeutronResource, without_none
from thermik.resources.neutron.common import TAGS, VALUE_SPECS, body, resolve
from thermik.resources.neutron.implied import router_requirements
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    PropertiesSchema,
    PropertySchema,
    Type,
)
from thermik.resources.stack_view import StackView

#: Properties sent to Neutron as they are named.
_SENT = ("name", "admin_state_up", "distributed", "ha", "availability_zone_hints")

GATEWAY = PropertySchema(
    Type.MAP,
    "The router's gateway on an external network.",
    schema={
        "network": PropertySchema(
            Type.STRING,
            "The name or ID of the external network of the gateway.",
            required=True,
            update_allowed=True,
            constraints=(CustomConstraint("neutron.network"),),
        ),
        "enable_snat": PropertySchema(
            Type.BOOLEAN,
            "Whether the gateway does source NAT (by default policy, setting it is for "
            "administrators only).",
            update_allowed=True,
        ),
        "external_fixed_ips": PropertySchema(
            Type.LIST,
            "The gateway's fixed addresses on the external network.",
            schema=PropertySchema(
                Type.MAP,
                schema={
                    "ip_address": PropertySchema(
                        Type.STRING,
                        "An external fixed IP address.",
                        constraints=(CustomConstraint("ip_addr"),),
                    ),
                    "subnet": PropertySchema(
                        Type.STRING,
                        "The name or ID of the subnet of the external fixed IP address.",
                        constraints=(CustomConstraint("neutron.subnet"),),
                    ),
                },
            ),
            update_allowed=True,
        ),
    },
    update_allowed=True,
)


class Router(NeutronResource):
    """``OS::Neutron::Router``."""

    kind: ClassVar[str] = "router"
    plural: ClassVar[str] = "routers"
    has_status: ClassVar[bool] = True

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(Type.STRING, "The name of the router.", update_allowed=True),
        "external_gateway_info": GATEWAY,
        "value_specs": VALUE_SPECS,
        "admin_state_up": PropertySchema(
            Type.BOOLEAN,
            "The administrative state of the router.",
            default=True,
            update_allowed=True,
        ),
        "l3_agent_ids": PropertySchema(
            Type.LIST,
            "The IDs of the L3 agents hosting the router (several for an HA router; by "
            "default policy, for administrators only).",
            schema=PropertySchema(Type.STRING),
            update_allowed=True,
        ),
        "distributed": PropertySchema(
            Type.BOOLEAN,
            "Whether the router is distributed (by default policy, for administrators "
            "only; not with l3_agent_ids).",
        ),
        "ha": PropertySchema(
            Type.BOOLEAN,
            "Whether the router is highly available (by default policy, for administrators "
            "only; not with distributed).",
        ),
        "availability_zone_hints": PropertySchema(
            Type.LIST,
            "The availability zones the router may be placed in (needs the "
            "availability_zone extension).",
            update_allowed=True,
        ),
        "tags": TAGS,
        "tenant_id": PropertySchema(
            Type.STRING,
            "The ID of the project owning the router; only administrators may name another "
            "project than their own.",
        ),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "status": AttributeSchema("The status of the router.", type=AttributeType.STRING),
        "external_gateway_info": AttributeSchema("The router's gateway.", type=AttributeType.MAP),
        "name": AttributeSchema("The name of the router.", type=AttributeType.STRING),
        "admin_state_up": AttributeSchema(
            "The administrative state of the router.", type=AttributeType.STRING
        ),
        "tenant_id": AttributeSchema("The project owning the router.", type=AttributeType.STRING),
    }

    @classmethod
    def implied_requirements(cls, name: str, stack: StackView) -> Iterable[str]:
        return router_requirements(name, stack)

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        agents = props.get("l3_agent_ids") or []
        conflict = None
        if props.get("distributed") and agents:
            conflict = ("distributed", "distributed, l3_agent_ids")
        elif props.get("distributed") and props.get("ha"):
            conflict = ("ha", "distributed, ha")
        if conflict:
            raise PropertyError(
                f"Cannot define the following properties at the same time: {conflict[1]}",
                path=("properties", conflict[0]),
            )
        if not props.get("ha") and isinstance(agents, list) and len(agents) > 1:
            raise PropertyError(
                "Non HA routers can only have one L3 agent.", path=("properties", "l3_agent_ids")
            )

    def _body(self, ctx: ResourceContext, props: Props, names: Iterable[str]) -> dict[str, Any]:
        names = frozenset(names)
        out = body(ctx, props, [n for n in _SENT if n in names], specs="value_specs" in names)
        if "external_gateway_info" in names:
            out["external_gateway_info"] = gateway_body(ctx, props.get("external_gateway_info"))
        if "tenant_id" in names and props.get("tenant_id"):
            out["project_id"] = props["tenant_id"]
        return out

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        fields = self._body(ctx, props, self.properties_schema)
        if not fields.get("external_gateway_info"):
            fields.pop("external_gateway_info", None)
        fields["name"] = self.name_of(ctx, props)
        self.make(ctx, props, fields)
        if props.get("l3_agent_ids"):
            self._place(ctx, props["l3_agent_ids"])
        return self.built(ctx)

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        fields = self._body(ctx, new_props, changed - {"l3_agent_ids"})
        if "name" in changed:
            fields["name"] = self.name_of(ctx, new_props)
        if "l3_agent_ids" in changed:
            self._place(ctx, new_props.get("l3_agent_ids") or [])
        self.change(ctx, fields, new_props.get("tags"), set_tags="tags" in changed)
        return self.built(ctx)

    def _place(self, ctx: ResourceContext, agents: list[str]) -> None:
        """Host the router on exactly ``agents`` (Neutron's L3 agent scheduler)."""
        router = self.current(ctx)

        def place(conn: Any) -> None:
            for agent in conn.network.routers_hosting_l3_agents(router):
                conn.network.remove_router_from_agent(agent, router)
            for agent_id in agents:
                conn.network.add_router_to_agent(agent_id, router)

        self.call(ctx, place)

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        return {
            "status": found.status,
            "external_gateway_info": found.external_gateway_info,
            "name": found.name,
            "admin_state_up": found.is_admin_state_up,
            "tenant_id": found.project_id,
        }


def gateway_body(ctx: ResourceContext, gateway: Mapping[str, Any] | None) -> dict[str, Any]:
    """Neutron's ``external_gateway_info`` for the property's value (empty: no gateway)."""
    if not gateway:
        return {}
    out: dict[str, Any] = {"network_id": resolve(ctx, "neutron.network", gateway["network"])}
    if gateway.get("enable_snat") is not None:
        out["enable_snat"] = gateway["enable_snat"]
    if gateway.get("external_fixed_ips") is not None:
        out["external_fixed_ips"] = [
            _fixed_ip(ctx, without_none(ip)) for ip in gateway["external_fixed_ips"]
        ]
    return out


def _fixed_ip(ctx: ResourceContext, fixed_ip: dict[str, Any]) -> dict[str, Any]:
    if "subnet" in fixed_ip:
        fixed_ip["subnet_id"] = resolve(ctx, "neutron.subnet", fixed_ip.pop("subnet"))
    return fixed_ip
