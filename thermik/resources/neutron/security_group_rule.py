"""``OS::Neutron::SecurityGroupRule``: one rule of a security group.

A rule cannot change: any new property value replaces it. Neutron refuses a second rule with
the same match in a group, so a create run again after a crash finds the rule its first run
made by that match, without any tag.
"""

from __future__ import annotations

from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.errors import PropertyError
from thermik.resources.cloud_access import create_once
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.neutron import rules as r
from thermik.resources.neutron.base import NeutronResource
from thermik.resources.neutron.common import resolve
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, Type


class SecurityGroupRule(NeutronResource):
    """``OS::Neutron::SecurityGroupRule``."""

    kind: ClassVar[str] = "security_group_rule"
    plural: ClassVar[str] = "security_group_rules"

    properties_schema: ClassVar[PropertiesSchema] = {
        "security_group": PropertySchema(
            Type.STRING,
            "The name or ID of the security group to add the rule to.",
            required=True,
            constraints=(r.GROUP,),
        ),
        "description": PropertySchema(Type.STRING, "The description of the rule."),
        "direction": PropertySchema(
            Type.STRING, r.DIRECTION_DOC, default="ingress", constraints=(r.DIRECTIONS,)
        ),
        "ethertype": PropertySchema(
            Type.STRING,
            "The ethertype of the traffic.",
            default="IPv4",
            constraints=(r.ETHERTYPES,),
        ),
        "port_range_min": PropertySchema(
            Type.INTEGER, r.PORT_MIN_DOC, constraints=(r.PORT_RANGE,)
        ),
        "port_range_max": PropertySchema(
            Type.INTEGER, r.PORT_MAX_DOC, constraints=(r.PORT_RANGE,)
        ),
        "protocol": PropertySchema(
            Type.STRING, r.PROTOCOL_DOC, default="tcp", constraints=(r.PROTOCOLS,)
        ),
        "remote_group": PropertySchema(
            Type.STRING,
            "The name or ID of the remote security group of the rule.",
            constraints=(r.GROUP,),
        ),
        "remote_ip_prefix": PropertySchema(
            Type.STRING,
            "The remote IP prefix (CIDR) of the rule.",
            constraints=(r.CIDR,),
        ),
    }

    def created_with(self, client: CloudClient, tag: str) -> Any:
        # A rule carries no tag: a create run again finds it by its match instead.
        return None

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        if props.get("remote_group") is not None and props.get("remote_ip_prefix") is not None:
            raise PropertyError(
                "Cannot define the following properties at the same time: remote_group, "
                "remote_ip_prefix",
                path=("properties", "remote_ip_prefix"),
            )
        problem = r.port_range_problem(props)
        if problem:
            raise PropertyError(problem, path=("properties", "port_range_min"))

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        fields: dict[str, Any] = {
            k: props[k]
            for k in (
                "description",
                "direction",
                "ethertype",
                "port_range_min",
                "port_range_max",
                "protocol",
                "remote_ip_prefix",
            )
            if props.get(k) is not None
        }
        fields["security_group_id"] = resolve(
            ctx, "neutron.security_group", props["security_group"]
        )
        if props.get("remote_group"):
            fields["remote_group_id"] = resolve(
                ctx, "neutron.security_group", props["remote_group"]
            )

        def found(tag: str) -> str | None:
            key = r.rule_key(fields)
            group = fields["security_group_id"]
            rules = self.call(
                ctx, lambda conn: list(conn.network.security_group_rules(security_group_id=group))
            )
            same = [rule for rule in rules if r.rule_key(rule.to_dict(computed=False)) == key]
            return str(self.seen(same[0]).id) if same else None

        def made(tag: str) -> str:
            rule = self.call(ctx, lambda conn: conn.network.create_security_group_rule(**fields))
            return str(self.seen(rule).id)

        ctx.set_physical_id(create_once(ctx, found, made))
        return None
