"""Security group rules as Heat's Neutron types describe them, and as Neutron takes them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from thermik.resources.constraints import AllowedValues, CustomConstraint, Range

PROTOCOL_NAMES = (
    "ah",
    "dccp",
    "egp",
    "esp",
    "gre",
    "icmp",
    "icmpv6",
    "igmp",
    "ipv6-encap",
    "ipv6-frag",
    "ipv6-icmp",
    "ipv6-nonxt",
    "ipv6-opts",
    "ipv6-route",
    "ospf",
    "pgm",
    "rsvp",
    "sctp",
    "tcp",
    "udp",
    "udplite",
    "vrrp",
)
PROTOCOLS = AllowedValues((*range(256), *PROTOCOL_NAMES))
PROTOCOL_DOC = (
    "The protocol the rule matches: " + ", ".join(PROTOCOL_NAMES) + ", or a number 0-255."
)
DIRECTIONS = AllowedValues(("ingress", "egress"))
ETHERTYPES = AllowedValues(("IPv4", "IPv6"))
REMOTE_MODES = AllowedValues(("remote_ip_prefix", "remote_group_id"))
PORT_RANGE = Range(min=0, max=65535)
CIDR = CustomConstraint("net_cidr")
GROUP = CustomConstraint("neutron.security_group")
DIRECTION_DOC = (
    "The direction the rule applies to: ingress matches traffic coming in to an instance, "
    "egress traffic leaving it."
)
PORT_MIN_DOC = (
    "The lowest port the rule matches (TCP, UDP: at most port_range_max; ICMP: the ICMP type)."
)
PORT_MAX_DOC = "The highest port the rule matches (ICMP: the ICMP code)."

#: Neutron creates these in every new group; Heat keeps them unless the rules name egress.
DEFAULT_EGRESS = (
    {"direction": "egress", "ethertype": "IPv4"},
    {"direction": "egress", "ethertype": "IPv6"},
)
#: What makes two rules the same rule (Neutron refuses a second one).
RULE_KEYS = (
    "direction",
    "ethertype",
    "protocol",
    "port_range_min",
    "port_range_max",
    "remote_group_id",
    "remote_ip_prefix",
)
ICMP = ("icmp", "icmpv6", "ipv6-icmp")


def rule_body(rule: Mapping[str, Any], group_id: str) -> dict[str, Any]:
    """Neutron's body of a rule of the ``rules`` property, in group ``group_id``.

    ``remote_mode`` picks the remote: ``remote_group_id`` (this very group when none is
    named) or ``remote_ip_prefix``; the other is cleared.
    """
    out = {k: v for k, v in rule.items() if k != "remote_mode" and v is not None}
    out["security_group_id"] = group_id
    if rule.get("remote_mode") == "remote_group_id":
        out.pop("remote_ip_prefix", None)
        out["remote_group_id"] = rule.get("remote_group_id") or group_id
    else:
        out.pop("remote_group_id", None)
    return out


def rule_key(rule: Mapping[str, Any]) -> tuple[str | None, ...]:
    """The identity of a rule, from a body or from what Neutron shows."""
    values = dict(rule)
    if "ethertype" not in values and "ether_type" in values:
        values["ethertype"] = values["ether_type"]
    return tuple(None if values.get(k) is None else str(values[k]) for k in RULE_KEYS)


def with_default_egress(rules: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The rules a group should have: its own, and Neutron's egress defaults unless they
    name an egress rule of their own (Heat's behaviour)."""
    rules = list(rules)
    if any(r.get("direction") == "egress" for r in rules):
        return rules
    return [*rules, *DEFAULT_EGRESS]


def rules_diff(
    current: Iterable[Mapping[str, Any]], desired: Iterable[Mapping[str, Any]]
) -> tuple[list[str], list[dict[str, Any]]]:
    """What makes a group's ``current`` rules the ``desired`` bodies: the ids of the rules to
    delete, and the bodies to create."""
    wanted = {rule_key(body): dict(body) for body in desired}
    have = {rule_key(rule): str(rule["id"]) for rule in current}
    stale = [rule_id for key, rule_id in have.items() if key not in wanted]
    missing = [body for key, body in wanted.items() if key not in have]
    return stale, missing


def port_range_problem(rule: Mapping[str, Any]) -> str | None:
    """Why a rule's port range is wrong (its minimum above its maximum), if it is."""
    low, high = rule.get("port_range_min"), rule.get("port_range_max")
    if not isinstance(low, int) or not isinstance(high, int):
        return None
    if rule.get("protocol") in ICMP or low <= high:
        return None
    return "The minimum port number must be less than or equal to the maximum port number."
