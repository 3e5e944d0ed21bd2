"""Custom constraints that need no cloud: addresses, networks, DNS names, timestamps.

Heat registers these next to the cloud look-ups (``ip_addr``, ``net_cidr``, ``mac_addr``,
``ip_or_cidr``, ``dns_name``, ``rel_dns_name``, ``dns_domain``, ``iso_8601``); Neutron's
types use them on addresses and names. They are decided from the value alone, so they apply
whether or not a cloud is configured: :func:`with_pure` adds them to whatever validators the
cloud layer supplies.

Each validator answers ``None`` for a valid value, else the reason (the caller prefixes
``Error validating value '...'``).
"""

from __future__ import annotations

import datetime
import ipaddress
import re
from collections.abc import Callable, Mapping
from typing import Any

Validator = Callable[[Any], str | None]

#: Longest fully qualified domain name, without its trailing dot.
FQDN_MAX_LEN = 255
_LABEL = re.compile(r"[a-z0-9-]{1,63}")
_NUMERIC = re.compile(r"[0-9]+")
_MAC = re.compile(r"[0-9A-Fa-f]{2}([-:]?)(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}")
_MAC_DOTTED = re.compile(r"(?:[0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}")


def ip_addr(value: Any) -> str | None:
    """An IPv4 or IPv6 address (no prefix, no shorthand such as ``10.1``)."""
    if not isinstance(value, str):
        return "Invalid IP address"
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return "Invalid IP address"
    return None


def net_cidr(value: Any) -> str | None:
    """A network in CIDR notation: an address and a prefix length (``10.0.0.0/24``)."""
    if not isinstance(value, str) or "/" not in value:
        return f"'{value}' is not a recognized IP subnet cidr (address/prefix length)"
    try:
        network = ipaddress.ip_network(value, strict=False)
    except ValueError as error:
        return f"Invalid net cidr {error}"
    if network.version == 4 and not _canonical_v4(value):
        return f"'{value}' isn't a recognized IP subnet cidr, '{network}' is recommended"
    return None


def _canonical_v4(value: str) -> bool:
    """Whether an IPv4 CIDR is written in full (four octets, a decimal prefix length)."""
    address, _, length = value.partition("/")
    return address.count(".") == 3 and length.isdigit() and str(int(length)) == length


def ip_or_cidr(value: Any) -> str | None:
    """An IP address, or a network in CIDR notation."""
    if isinstance(value, str) and "/" in value:
        return net_cidr(value)
    return None if ip_addr(value) is None else f"{value} is not a valid IP or CIDR"


def mac_addr(value: Any) -> str | None:
    """A 48-bit MAC address (``fa:16:3e:00:00:01``, dashes, or Cisco's dotted form)."""
    if isinstance(value, str) and (_MAC.fullmatch(value) or _MAC_DOTTED.fullmatch(value)):
        return None
    return "Invalid MAC address."


def _dns_problem(value: str) -> str | None:
    """Why ``value`` is not a DNS name (labels of 1-63 lowercase letters, digits, hyphens)."""
    trimmed = value[:-1] if value.endswith(".") else value
    if len(trimmed) > FQDN_MAX_LEN:
        return f"'{trimmed}' exceeds the {FQDN_MAX_LEN} character FQDN limit"
    labels = trimmed.split(".")
    for label in labels:
        if not label:
            return "Encountered an empty component."
        if label.startswith("-") or label.endswith("-"):
            return f"Name '{label}' must not start or end with a hyphen."
        if not _LABEL.fullmatch(label):
            return (
                f"Name '{label}' must be 1-63 characters long, each of which can only be "
                "alphanumeric or a hyphen."
            )
    if value.endswith(".") and len(labels) > 1 and _NUMERIC.fullmatch(labels[-1]):
        return f"TLD '{labels[-1]}' must not be all numeric."
    return None


def dns_name(value: Any) -> str | None:
    """A DNS name, relative or fully qualified."""
    if not isinstance(value, str):
        return f"'{value}' is not a string"
    if not value:
        return None
    problem = _dns_problem(value)
    return None if problem is None else f"'{value}' not in valid format. Reason: {problem}"


def rel_dns_name(value: Any) -> str | None:
    """A relative DNS name: no trailing dot, room left for a domain."""
    if not value:
        return None
    if isinstance(value, str) and value.endswith("."):
        return f"'{value}' is a FQDN. It should be a relative domain name."
    if isinstance(value, str) and len(value) > FQDN_MAX_LEN - 3:
        return (
            f"'{value}' contains '{len(value)}' characters. Adding a domain name will cause "
            f"it to exceed the maximum length of a FQDN of '{FQDN_MAX_LEN}'."
        )
    return dns_name(value)


def dns_domain(value: Any) -> str | None:
    """A fully qualified DNS domain: a DNS name ending with a dot."""
    if not value:
        return None
    problem = dns_name(value)
    if problem is not None:
        return problem
    return None if str(value).endswith(".") else f"'{value}' must end with '.'."


def iso_8601(value: Any) -> str | None:
    """A timestamp in ISO 8601 form (``2026-12-02T01:30:00Z``)."""
    if not isinstance(value, str):
        return "Invalid ISO 8601 timestamp"
    try:
        datetime.datetime.fromisoformat(value)
    except ValueError:
        return f"'{value}' is not an ISO 8601 timestamp"
    return None


#: The cloud-free custom constraints, by the name Heat gives them.
PURE_CONSTRAINTS: Mapping[str, Validator] = {
    "ip_addr": ip_addr,
    "net_cidr": net_cidr,
    "ip_or_cidr": ip_or_cidr,
    "mac_addr": mac_addr,
    "dns_name": dns_name,
    "rel_dns_name": rel_dns_name,
    "dns_domain": dns_domain,
    "iso_8601": iso_8601,
}


def with_pure(validators: Mapping[str, Validator] | None) -> dict[str, Validator]:
    """``validators`` (the cloud's, if any) with the cloud-free constraints added."""
    return {**PURE_CONSTRAINTS, **(validators or {})}
