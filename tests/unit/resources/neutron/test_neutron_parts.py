"""The pure parts of Neutron's types: physical ids, rule bodies and diffs, gateway values,
cross-property checks and what needs replacement."""

from __future__ import annotations

from typing import Any

import pytest

from thermik.errors import PluginError, PropertyError
from thermik.resources.context import ValidationContext
from thermik.resources.neutron import rules as r
from thermik.resources.neutron.floating_ip import FloatingIP
from thermik.resources.neutron.floating_ip_association import (
    association_id,
    parse_association_id,
)
from thermik.resources.neutron.port import Port
from thermik.resources.neutron.router import Router
from thermik.resources.neutron.router_interface import Interface, RouterInterface
from thermik.resources.neutron.security_group import SecurityGroup
from thermik.resources.neutron.security_group_rule import SecurityGroupRule
from thermik.resources.neutron.subnet import Subnet, gateway_field, subnet_problem
from thermik.resources.plugin import NeedsReplacement, ResourcePlugin
from thermik.resources.registry import Registry

TYPES = {
    "OS::Neutron::Subnet": Subnet,
    "OS::Neutron::Port": Port,
    "OS::Neutron::Router": Router,
    "OS::Neutron::RouterInterface": RouterInterface,
    "OS::Neutron::FloatingIP": FloatingIP,
    "OS::Neutron::SecurityGroup": SecurityGroup,
    "OS::Neutron::SecurityGroupRule": SecurityGroupRule,
}


def test_every_type_is_registered() -> None:
    registry = Registry.from_entry_points()
    for name in [*TYPES, "OS::Neutron::FloatingIPAssociation", "OS::Neutron::Net"]:
        assert name in registry


# -- physical ids ------------------------------------------------------------------------------


def test_an_interface_id_is_heats() -> None:
    interface = Interface("r1", "subnet_id", "s1")
    assert interface.physical_id == "r1:subnet_id=s1"
    assert Interface.parse("r1:subnet_id=s1") == interface
    assert Interface.parse("r1:port_id=p1") == Interface("r1", "port_id", "p1")
    assert Interface.parse("r1:port_id=p1").argument == {"port": "p1"}
    assert interface.argument == {"subnet": "s1"}


def test_the_old_interface_id_names_a_subnet() -> None:
    assert Interface.parse("r1:s1") == Interface("r1", "subnet_id", "s1")


@pytest.mark.parametrize("bad", ["r1", ":subnet_id=s1", "r1:network_id=n1", "r1:subnet_id="])
def test_a_bad_interface_id_is_refused(bad: str) -> None:
    with pytest.raises(PluginError):
        Interface.parse(bad)


def test_an_association_id_names_the_floating_ip_and_the_port() -> None:
    assert parse_association_id(association_id("f1", "p1")) == ("f1", "p1")
    for bad in ("f1", "f1:", ":p1", "f1:p1:x"):
        with pytest.raises(PluginError):
            parse_association_id(bad)


# -- security group rules ----------------------------------------------------------------------


def test_a_rule_by_prefix_clears_the_remote_group() -> None:
    rule = {
        "direction": "ingress",
        "remote_mode": "remote_ip_prefix",
        "remote_group_id": "g2",
        "remote_ip_prefix": "10.0.0.0/8",
        "protocol": "tcp",
        "port_range_min": None,
    }
    assert r.rule_body(rule, "g1") == {
        "direction": "ingress",
        "remote_ip_prefix": "10.0.0.0/8",
        "protocol": "tcp",
        "security_group_id": "g1",
    }


def test_a_rule_by_group_defaults_to_its_own_group() -> None:
    rule = {"remote_mode": "remote_group_id", "remote_ip_prefix": "10.0.0.0/8"}
    assert r.rule_body(rule, "g1") == {"security_group_id": "g1", "remote_group_id": "g1"}


def test_rules_without_egress_keep_neutrons_defaults() -> None:
    ingress = [{"direction": "ingress", "protocol": "tcp"}]
    assert r.with_default_egress(ingress) == [*ingress, *r.DEFAULT_EGRESS]
    egress = [{"direction": "egress", "protocol": "tcp"}]
    assert r.with_default_egress(egress) == egress


def test_the_diff_deletes_the_stale_and_creates_the_missing() -> None:
    current: list[dict[str, Any]] = [
        {"id": "e4", "direction": "egress", "ethertype": "IPv4"},
        {"id": "e6", "direction": "egress", "ethertype": "IPv6"},
        {
            "id": "ssh",
            "direction": "ingress",
            "ethertype": "IPv4",
            "protocol": "tcp",
            "port_range_min": 22,
            "port_range_max": 22,
        },
    ]
    desired = [
        {
            "direction": "ingress",
            "ethertype": "IPv4",
            "protocol": "tcp",
            "port_range_min": 22,
            "port_range_max": 22,
            "security_group_id": "g",
        },
        {"direction": "egress", "ethertype": "IPv4", "protocol": "tcp", "security_group_id": "g"},
    ]
    stale, missing = r.rules_diff(current, desired)
    assert sorted(stale) == ["e4", "e6"]
    assert missing == [desired[1]]


def test_a_rule_shown_by_openstacksdk_has_the_same_key() -> None:
    body = {"direction": "egress", "ethertype": "IPv6"}
    assert r.rule_key({"direction": "egress", "ether_type": "IPv6"}) == r.rule_key(body)


def test_a_port_range_upside_down_is_refused_but_for_icmp() -> None:
    assert r.port_range_problem({"port_range_min": 80, "port_range_max": 22}) is not None
    icmp = {"protocol": "icmp", "port_range_min": 8, "port_range_max": 0}
    assert r.port_range_problem(icmp) is None
    assert r.port_range_problem({"port_range_min": 22}) is None


# -- subnets -----------------------------------------------------------------------------------


def test_gateway_values() -> None:
    assert gateway_field(None, creating=True) == {}
    assert gateway_field("auto", creating=True) == {}
    assert gateway_field("", creating=True) == {"gateway_ip": None}
    assert gateway_field("~", creating=False) == {"gateway_ip": None}
    assert gateway_field(None, creating=False) == {"gateway_ip": None}
    assert gateway_field("10.0.0.254", creating=False) == {"gateway_ip": "10.0.0.254"}
    with pytest.raises(PropertyError, match="auto"):
        gateway_field("auto", creating=False)


@pytest.mark.parametrize(
    ("props", "where"),
    [
        ({"subnetpool": "p", "cidr": "10.0.0.0/24"}, "subnetpool"),
        ({}, "cidr"),
        ({"cidr": "10.0.0.0/24", "prefixlen": 26}, "prefixlen"),
        ({"cidr": "10.0.0.0/24", "ip_version": 4, "ipv6_ra_mode": "slaac"}, "ip_version"),
        (
            {"cidr": "fd00::/64", "ipv6_ra_mode": "slaac", "ipv6_address_mode": "dhcpv6-stateful"},
            "ipv6_ra_mode",
        ),
        ({"cidr": "10.0.0.0/24", "gateway_ip": "10.0.0"}, "gateway_ip"),
    ],
)
def test_subnet_inconsistencies_name_their_property(props: dict[str, Any], where: str) -> None:
    problem = subnet_problem(props, ValidationContext())
    assert problem is not None
    assert problem[0] == where


def test_a_consistent_subnet_passes() -> None:
    props = {"cidr": "10.0.0.0/24", "ip_version": 4, "gateway_ip": ""}
    assert subnet_problem(props, ValidationContext()) is None
    assert subnet_problem({"subnetpool": "p", "prefixlen": 26}, ValidationContext()) is None


# -- cross-property checks ---------------------------------------------------------------------


def refused(plugin: type[ResourcePlugin], props: dict[str, Any]) -> PropertyError:
    with pytest.raises(PropertyError) as caught:
        plugin().validate(props, ValidationContext())
    return caught.value


def test_cross_property_checks() -> None:
    assert "no_fixed_ips" in str(refused(Port, {"fixed_ips": [{}], "no_fixed_ips": True}))
    assert "subnet, port" in str(refused(RouterInterface, {"subnet": "s", "port": "p"}))
    assert "subnet, port" in str(refused(RouterInterface, {}))
    assert "port_id" in str(refused(FloatingIP, {"fixed_ip_address": "10.0.0.5"}))
    assert "default" in str(refused(SecurityGroup, {"name": "default"}))
    both = {"remote_group": "g", "remote_ip_prefix": "10.0.0.0/8"}
    assert "remote_group" in str(refused(SecurityGroupRule, both))
    assert "ha" in str(refused(Router, {"distributed": True, "ha": True}))
    assert "one L3 agent" in str(refused(Router, {"l3_agent_ids": ["a", "b"]}))


# -- update or replace -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("plugin", "changed", "replaced"),
    [
        (Subnet, {"name", "dns_nameservers", "gateway_ip", "allocation_pools", "tags"}, False),
        (Subnet, {"cidr"}, True),
        (Port, {"name", "security_groups", "fixed_ips", "admin_state_up"}, False),
        (Port, {"network"}, True),
        (Router, {"external_gateway_info", "name", "admin_state_up"}, False),
        (Router, {"ha"}, True),
        (RouterInterface, {"subnet"}, True),
        (FloatingIP, {"port_id", "fixed_ip_address"}, False),
        (FloatingIP, {"floating_network"}, True),
        (SecurityGroup, {"rules", "name", "description"}, False),
        (SecurityGroupRule, {"port_range_min"}, True),
    ],
)
def test_what_needs_replacement(
    plugin: type[ResourcePlugin], changed: set[str], replaced: bool
) -> None:
    plan = plugin().needs_replacement(None, {}, {}, frozenset(changed))  # type: ignore[arg-type]
    assert isinstance(plan, NeedsReplacement) is replaced


@pytest.mark.parametrize("plugin", TYPES.values())
def test_schemas_render_as_heats_api_does(plugin: type[ResourcePlugin]) -> None:
    for name, schema in plugin.properties_schema.items():
        assert schema.as_dict()["type"], name
    for name, attribute in plugin.attributes_schema.items():
        assert attribute.description, name


# -- Heat's old property names -----------------------------------------------------------------


def test_old_property_names_still_work() -> None:
    subnet = Subnet.check_properties({"network_id": "n1", "cidr": "10.0.0.0/24"})
    assert subnet["network"] == "n1"
    port = Port.check_properties({"network_id": "n1", "fixed_ips": [{"subnet_id": "s1"}]})
    assert port["network"] == "n1"
    assert port["fixed_ips"][0]["subnet"] == "s1"
    interface = RouterInterface.check_properties({"router_id": "r1", "subnet_id": "s1"})
    assert (interface["router"], interface["subnet"]) == ("r1", "s1")
    fip = FloatingIP.check_properties({"floating_network_id": "public"})
    assert fip["floating_network"] == "public"


def test_an_old_and_a_new_name_together_are_refused() -> None:
    with pytest.raises(PropertyError) as caught:
        Subnet.check_properties(
            {"network": "n1", "network_id": "n2"}, path=("resources", "s", "properties")
        )
    assert "network, network_id" in str(caught.value)
    assert "resources.s.properties.network_id" in str(caught.value)


def test_a_port_that_asks_for_it_is_always_replaced() -> None:
    props = Port.check_properties({"network": "n1", "replacement_policy": "REPLACE_ALWAYS"})
    plan = Port().needs_replacement(None, props, props, frozenset())  # type: ignore[arg-type]
    assert isinstance(plan, NeedsReplacement)
