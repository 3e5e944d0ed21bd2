"""The rules of a Neutron QoS policy: ``OS::Neutron::QoSBandwidthLimitRule``,
``QoSDscpMarkingRule``, ``QoSMinimumBandwidthRule`` and ``QoSMinimumPacketRateRule``.

A rule lives inside its policy (openstacksdk and Neutron name both to reach it), takes neither a
description nor tags, and has no owner of its own: Heat's ``tenant_id`` property is taken and
not sent (Neutron refuses an owner in a rule's body). Neutron allows one rule of a kind per
policy and direction (one DSCP marking rule per policy): that pair, recorded before the create,
finds again what a create an engine crash interrupted made, so no rule is orphaned; a create
Neutron refuses (another rule has the place) forgets it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.errors import CloudGone, PluginError
from thermik.resources.constraints import AllowedValues, CustomConstraint, Range
from thermik.resources.context import ResourceContext
from thermik.resources.neutron.common import resolve
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, SupportStatus, Type
from thermik.resources.untagged import Keyed, record, recorded

#: The DSCP marks Neutron takes.
DSCP_MARKS = (0, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 46, 48, 56)

COMMON: PropertiesSchema = {
    "policy": PropertySchema(
        Type.STRING,
        "ID or name of the QoS policy.",
        required=True,
        constraints=(CustomConstraint("neutron.qos_policy"),),
    ),
    "tenant_id": PropertySchema(Type.STRING, "The owner tenant ID of this rule."),
}


def _rate(doc: str, *, required: bool = True, default: int | None = None) -> PropertySchema:
    return PropertySchema(
        Type.INTEGER,
        doc,
        required=required,
        default=default,
        update_allowed=True,
        constraints=(Range(min=0),),
    )


def _direction(values: tuple[str, ...], **kwargs: Any) -> PropertySchema:
    return PropertySchema(
        Type.STRING,
        "Traffic direction from the point of view of the port.",
        default="egress",
        update_allowed=True,
        constraints=(AllowedValues(values),),
        **kwargs,
    )


class QoSRule(Keyed):
    """A rule of :attr:`kind` in a QoS policy (see the module docstring)."""

    service: ClassVar[str] = "neutron"
    key_name: ClassVar[str] = "qos_rule_key"
    #: The rule's kind as openstacksdk names its methods (``create_qos_<kind>`` ...).
    kind: ClassVar[str]
    #: The properties sent to Neutron as they are (all but ``policy`` and ``tenant_id``).
    fields: ClassVar[tuple[str, ...]]

    def _method(self, verb: str) -> str:
        return f"{verb}_qos_{self.kind}"

    def _policy(self, ctx: ResourceContext | None = None) -> str:
        if self._key is None and ctx is not None:
            self._key = recorded(ctx, self.key_name)
        if self._key is None:
            raise PluginError("The QoS rule's policy is not known: it was not created here")
        return str(self._key["policy"])

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        def key() -> dict[str, Any]:
            return {
                "policy": resolve(ctx, "neutron.qos_policy", props["policy"]),
                "direction": props.get("direction"),
            }

        fields = {n: props[n] for n in self.fields if props.get(n) is not None}
        create = self._method("create")

        def make(key: Mapping[str, Any], tag: str) -> Any:
            policy = key["policy"]
            return self.call(
                ctx, lambda conn: getattr(conn.network, create)(policy, **fields), idempotent=False
            )

        self.create_keyed(ctx, key, make)
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        fields = {n: new_props.get(n) for n in self.fields if n in changed}
        if not fields:
            return None
        assert ctx.physical_id is not None
        rule, policy, update = ctx.physical_id, self._policy(ctx), self._method("update")
        self.seen(
            self.call(ctx, lambda conn: getattr(conn.network, update)(rule, policy, **fields))
        )
        if "direction" in fields:
            self._key = record(
                ctx, self.key_name, {"policy": policy, "direction": fields["direction"]}
            )
        return None

    def current(self, ctx: ResourceContext) -> Any:
        self._policy(ctx)
        return super().current(ctx)

    def fetch(self, client: CloudClient, physical_id: str) -> Any:
        policy, get = self._policy(), self._method("get")
        return client.call(lambda conn: getattr(conn.network, get)(physical_id, policy))

    def remove(self, client: CloudClient, physical_id: str) -> None:
        policy, delete = self._policy(), self._method("delete")
        client.call(
            lambda conn: getattr(conn.network, delete)(physical_id, policy, ignore_missing=False)
        )

    def listed(self, conn: Any, key: Mapping[str, Any], tag: str) -> Iterable[Any]:
        direction = key.get("direction")
        rules = getattr(conn.network, f"qos_{self.kind}s")(key["policy"])
        return [r for r in rules if direction is None or r.direction == direction]

    def created_with(self, client: CloudClient, tag: str) -> Any:
        try:
            return super().created_with(client, tag)
        except CloudGone:
            return None  # the policy is gone, and its rules with it


class QoSBandwidthLimitRule(QoSRule):
    """``OS::Neutron::QoSBandwidthLimitRule``: a limit of a port's bandwidth."""

    kind: ClassVar[str] = "bandwidth_limit_rule"
    fields: ClassVar[tuple[str, ...]] = ("max_kbps", "max_burst_kbps", "direction")
    support_status = SupportStatus(version="6.0.0")
    properties_schema: ClassVar[PropertiesSchema] = {
        "max_kbps": _rate("Max bandwidth in kbps."),
        "max_burst_kbps": _rate("Max burst bandwidth in kbps.", required=False, default=0),
        "direction": _direction(
            ("egress", "ingress"), support_status=SupportStatus(version="13.0.0")
        ),
        **COMMON,
    }


class QoSDscpMarkingRule(QoSRule):
    """``OS::Neutron::QoSDscpMarkingRule``: the DSCP mark of a port's traffic."""

    kind: ClassVar[str] = "dscp_marking_rule"
    fields: ClassVar[tuple[str, ...]] = ("dscp_mark",)
    support_status = SupportStatus(version="7.0.0")
    properties_schema: ClassVar[PropertiesSchema] = {
        "dscp_mark": PropertySchema(
            Type.INTEGER,
            "DSCP mark between 0 and 56, except 2-6, 42, 44, and 50-54.",
            required=True,
            update_allowed=True,
            constraints=(AllowedValues(DSCP_MARKS),),
        ),
        **COMMON,
    }


class QoSMinimumBandwidthRule(QoSRule):
    """``OS::Neutron::QoSMinimumBandwidthRule``: bandwidth guaranteed to a port."""

    kind: ClassVar[str] = "minimum_bandwidth_rule"
    fields: ClassVar[tuple[str, ...]] = ("min_kbps", "direction")
    support_status = SupportStatus(version="14.0.0")
    properties_schema: ClassVar[PropertiesSchema] = {
        "min_kbps": _rate("Min bandwidth in kbps."),
        "direction": _direction(("egress", "ingress")),
        **COMMON,
    }


class QoSMinimumPacketRateRule(QoSRule):
    """``OS::Neutron::QoSMinimumPacketRateRule``: a packet rate guaranteed to a port."""

    kind: ClassVar[str] = "minimum_packet_rate_rule"
    fields: ClassVar[tuple[str, ...]] = ("min_kpps", "direction")
    support_status = SupportStatus(version="19.0.0")
    properties_schema: ClassVar[PropertiesSchema] = {
        "min_kpps": _rate("Min packet rate in kpps."),
        "direction": _direction(("any", "egress", "ingress")),
        **COMMON,
    }
