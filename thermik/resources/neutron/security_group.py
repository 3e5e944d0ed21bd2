"""``OS::Neutron::SecurityGroup``: a Neutron security group and its rules.

Neutron gives every new group two egress rules (any IPv4, any IPv6). As in Heat, they stay
unless the ``rules`` name an egress rule of their own, which then replace them. All rules go
in one bulk request; an update compares the rules Neutron has with the ones wanted and
deletes and creates only the difference.

The creation tag goes in the description when the template sets none; otherwise a create
run again after a crash finds the group by the name its first run recorded (with the
description), since Neutron takes no tags in a create.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from thermik.errors import PropertyError
from thermik.resources.cloud_access import CREATE_STARTED_KEY, create_once, creation_tag
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.neutron import rules as r
from thermik.resources.neutron.base import NeutronResource
from thermik.resources.neutron.common import resolve
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, Type

#: Resource data key of the name a create gave the group (to find it again after a crash).
NAME_KEY = "cloud_create_name"

RULE = PropertySchema(
    Type.MAP,
    schema={
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
            Type.STRING,
            r.PROTOCOL_DOC + " Without it, every protocol matches.",
            constraints=(r.PROTOCOLS,),
        ),
        "remote_mode": PropertySchema(
            Type.STRING,
            "Whether the rule names a remote group or a remote IP prefix.",
            default="remote_ip_prefix",
            constraints=(r.REMOTE_MODES,),
        ),
        "remote_group_id": PropertySchema(
            Type.STRING,
            "The remote group of the rule (remote_mode remote_group_id); without it, this "
            "very group.",
            constraints=(r.GROUP,),
        ),
        "remote_ip_prefix": PropertySchema(
            Type.STRING,
            "The remote IP prefix (CIDR) of the rule.",
            constraints=(r.CIDR,),
        ),
        "description": PropertySchema(Type.STRING, "The description of the rule."),
    },
)


class SecurityGroup(NeutronResource):
    """``OS::Neutron::SecurityGroup``."""

    kind: ClassVar[str] = "security_group"
    plural: ClassVar[str] = "security_groups"

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(
            Type.STRING,
            "The name of the security group, not necessarily unique.",
            update_allowed=True,
        ),
        "description": PropertySchema(
            Type.STRING, "The description of the security group.", update_allowed=True
        ),
        "rules": PropertySchema(
            Type.LIST,
            "The rules of the security group.",
            default=[],
            schema=RULE,
            update_allowed=True,
        ),
        "stateful": PropertySchema(
            Type.BOOLEAN,
            "Whether the group is stateful (needs the stateful-security-group extension to "
            "be false).",
            update_allowed=True,
        ),
    }

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        if props.get("name") == "default":
            raise PropertyError(
                'Security groups cannot be assigned the name "default".',
                path=("properties", "name"),
            )
        for index, rule in enumerate(props.get("rules") or []):
            problem = r.port_range_problem(rule) if isinstance(rule, Mapping) else None
            if problem:
                raise PropertyError(problem, path=("properties", "rules", index))

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        description = props.get("description")
        resumed = ctx.data.get(CREATE_STARTED_KEY) == creation_tag(ctx)
        name = (ctx.data.get(NAME_KEY) if resumed else None) or self.name_of(ctx, props)
        if not resumed:
            ctx.data.set(NAME_KEY, name)
        fields: dict[str, Any] = {"name": name}
        if props.get("stateful") is not None:
            fields["stateful"] = props["stateful"]

        def found(tag: str) -> str | None:
            filters = {"description": description or tag, "name": name}
            groups = self.call(ctx, lambda conn: list(conn.network.security_groups(**filters)))
            if groups:
                self.seen(groups[0])
            return str(groups[0].id) if groups else None

        def made(tag: str) -> str:
            sent = {**fields, "description": description or tag}
            return str(
                self.seen(
                    self.call(ctx, lambda conn: conn.network.create_security_group(**sent))
                ).id
            )

        ctx.set_physical_id(create_once(ctx, found, made))
        wanted = self._rule_bodies(ctx, props.get("rules") or [])
        if resumed:
            self._sync_rules(ctx, wanted)
        else:
            self._first_rules(ctx, wanted)
        return None

    def _rule_bodies(
        self, ctx: ResourceContext, rules: Iterable[Mapping[str, Any]]
    ) -> list[dict[str, Any]]:
        assert ctx.physical_id is not None
        out = []
        for rule in r.with_default_egress(rules):
            resolved = dict(rule)
            if rule.get("remote_group_id"):
                resolved["remote_group_id"] = resolve(
                    ctx, "neutron.security_group", rule["remote_group_id"]
                )
            out.append(r.rule_body(resolved, ctx.physical_id))
        return out

    def _first_rules(self, ctx: ResourceContext, wanted: list[dict[str, Any]]) -> None:
        """Give a new group its rules, from the defaults Neutron made with it."""
        defaults = list(getattr(self._seen, "security_group_rules", None) or [])
        self._apply(ctx, *r.rules_diff(defaults, wanted))

    def _sync_rules(self, ctx: ResourceContext, wanted: list[dict[str, Any]]) -> None:
        current = self.refresh(ctx).security_group_rules or []
        self._apply(ctx, *r.rules_diff(current, wanted))

    def _apply(
        self, ctx: ResourceContext, stale: list[str], missing: list[dict[str, Any]]
    ) -> None:
        def apply(conn: Any) -> None:
            for rule_id in stale:
                conn.network.delete_security_group_rule(rule_id, ignore_missing=True)
            if missing:
                list(conn.network.create_security_group_rules(missing))

        if stale or missing:
            self.call(ctx, apply)

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        fields: dict[str, Any] = {
            k: new_props.get(k) for k in ("description", "stateful") if k in changed
        }
        if "name" in changed:
            fields["name"] = self.name_of(ctx, new_props)
        if "description" in fields and fields["description"] is None:
            fields["description"] = ""
        self.change(ctx, fields)
        if "rules" in changed:
            self._sync_rules(ctx, self._rule_bodies(ctx, new_props.get("rules") or []))
        return None
