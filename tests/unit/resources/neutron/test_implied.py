"""Heat's implicit dependencies of Neutron and Nova types, inferred from templates alone."""

from __future__ import annotations

from typing import Any

import pytest

from thermik.resources import Registry
from thermik.template import Template, build_stack


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry.from_entry_points()


def deps(registry: Registry, resources: dict[str, Any], **parameters: Any) -> dict[str, set[str]]:
    tmpl: dict[str, Any] = {"heat_template_version": "2018-08-31", "resources": resources}
    if parameters:
        tmpl["parameters"] = {name: {"type": "string"} for name in parameters}
    definition = build_stack(Template.from_document(tmpl), None, parameters)
    implied = definition.with_implied(registry.implied)
    return {name: set(needs) for name, needs in implied.dependencies().items()}


def ref(name: str) -> dict[str, str]:
    return {"get_resource": name}


NET = {"type": "OS::Neutron::Net"}


def subnet(network: Any, cidr: str = "10.0.0.0/24") -> dict[str, Any]:
    return {"type": "OS::Neutron::Subnet", "properties": {"network": network, "cidr": cidr}}


NETWORK = {
    "net": NET,
    "subnet": subnet(ref("net")),
    "subnet6": subnet(ref("net"), "fd00::/64"),
    "other": NET,
    "other_subnet": subnet(ref("other"), "10.1.0.0/24"),
}
ROUTER = {
    "type": "OS::Neutron::Router",
    "properties": {"external_gateway_info": {"network": "public"}},
}
INTERFACE = {
    "type": "OS::Neutron::RouterInterface",
    "properties": {"router": ref("router"), "subnet": ref("subnet")},
}


def test_a_port_waits_for_every_subnet_of_its_network_and_no_other(registry: Registry) -> None:
    port = {"type": "OS::Neutron::Port", "properties": {"network": ref("net")}}
    found = deps(registry, {**NETWORK, "port": port})
    assert found["port"] == {"net", "subnet", "subnet6"}


def test_a_port_matches_a_network_named_by_a_parameter_or_its_old_property_name(
    registry: Registry,
) -> None:
    resources = {
        "subnet": subnet({"get_param": "net"}),
        "port": {"type": "OS::Neutron::Port", "properties": {"network_id": "private"}},
    }
    assert deps(registry, resources, net="private")["port"] == {"subnet"}


def test_a_server_on_a_network_waits_for_its_subnets(registry: Registry) -> None:
    server = {
        "type": "OS::Nova::Server",
        "properties": {"image": "i", "flavor": "f", "networks": [{"network": ref("other")}]},
    }
    assert deps(registry, {**NETWORK, "server": server})["server"] == {"other", "other_subnet"}


def test_a_server_on_a_port_waits_for_every_subnet_as_heat_s_does(registry: Registry) -> None:
    server = {
        "type": "OS::Nova::Server",
        "properties": {"image": "i", "flavor": "f", "networks": [{"port": "some-port-id"}]},
    }
    found = deps(registry, {**NETWORK, "server": server})
    assert found["server"] == {"subnet", "subnet6", "other_subnet"}


def test_a_server_without_networks_waits_for_nothing(registry: Registry) -> None:
    server = {"type": "OS::Nova::Server", "properties": {"image": "i", "flavor": "f"}}
    assert deps(registry, {**NETWORK, "server": server})["server"] == set()


def test_a_router_waits_for_the_subnets_of_its_gateway_network(registry: Registry) -> None:
    router = {
        "type": "OS::Neutron::Router",
        "properties": {"external_gateway_info": {"network": ref("other")}},
    }
    assert deps(registry, {**NETWORK, "router": router})["router"] == {"other", "other_subnet"}


def floating_ip(network: str = "public") -> dict[str, Any]:
    return {
        "type": "OS::Neutron::FloatingIP",
        "properties": {"floating_network": network, "port_id": ref("port")},
    }


def test_a_floating_ip_waits_for_the_gateway_and_the_interface_of_its_port_s_subnet(
    registry: Registry,
) -> None:
    resources = {
        **NETWORK,
        "router": ROUTER,
        "iface": INTERFACE,
        "other_iface": {
            **INTERFACE,
            "properties": {"router": ref("router"), "subnet": ref("other_subnet")},
        },
        "port": {
            "type": "OS::Neutron::Port",
            "properties": {"network": ref("net"), "fixed_ips": [{"subnet": ref("subnet")}]},
        },
        "fip": floating_ip(),
    }
    found = deps(registry, resources)
    assert found["fip"] == {"port", "router", "iface"}
    assert found["port"] == {"net", "subnet", "subnet6"}


def test_a_floating_ip_on_another_external_network_skips_the_router(registry: Registry) -> None:
    resources = {
        **NETWORK,
        "router": ROUTER,
        "port": {"type": "OS::Neutron::Port", "properties": {"network": ref("other")}},
        "iface": INTERFACE,
        "fip": floating_ip(network="elsewhere"),
    }
    # The port has no fixed IPs: it is on a subnet of its network, and the interface's
    # subnet is on another one.
    assert deps(registry, resources)["fip"] == {"port"}


def test_a_floating_ip_association_waits_for_the_interface_of_its_port(
    registry: Registry,
) -> None:
    resources = {
        **NETWORK,
        "router": ROUTER,
        "iface": INTERFACE,
        "port": {
            "type": "OS::Neutron::Port",
            "properties": {"network": ref("net"), "fixed_ips": [{"subnet_id": ref("subnet")}]},
        },
        "fip": {"type": "OS::Neutron::FloatingIP", "properties": {"floating_network": "x"}},
        "assoc": {
            "type": "OS::Neutron::FloatingIPAssociation",
            "properties": {"floatingip_id": ref("fip"), "port_id": ref("port")},
        },
    }
    found = deps(registry, resources)
    assert found["assoc"] == {"fip", "port", "iface"}
    assert found["fip"] == set()


def routes(router: Any) -> dict[str, Any]:
    return {
        "type": "OS::Neutron::ExtraRouteSet",
        "properties": {
            "router": router,
            "routes": [{"destination": "10.9.0.0/24", "nexthop": "10.0.0.10"}],
        },
    }


def test_an_extra_route_set_waits_for_every_interface_of_its_router_and_no_other(
    registry: Registry,
) -> None:
    resources = {
        **NETWORK,
        "router": ROUTER,
        "elsewhere": ROUTER,
        "iface": INTERFACE,
        "other_iface": {
            **INTERFACE,
            "properties": {"router_id": ref("router"), "subnet": ref("other_subnet")},
        },
        "foreign_iface": {
            **INTERFACE,
            "properties": {"router": ref("elsewhere"), "subnet": ref("other_subnet")},
        },
        "routes": routes(ref("router")),
    }
    assert deps(registry, resources)["routes"] == {"router", "iface", "other_iface"}


def test_an_extra_route_set_on_a_router_named_by_a_parameter_matches_it(
    registry: Registry,
) -> None:
    resources = {
        **NETWORK,
        "iface": {
            "type": "OS::Neutron::RouterInterface",
            "properties": {"router": "r1", "subnet": ref("subnet")},
        },
        "other_iface": {
            "type": "OS::Neutron::RouterInterface",
            "properties": {"router": "r2", "subnet": ref("subnet")},
        },
        "routes": routes({"get_param": "router"}),
    }
    assert deps(registry, resources, router="r1")["routes"] == {"iface"}


def test_an_implied_edge_that_would_close_a_cycle_is_left_out(registry: Registry) -> None:
    resources = {
        "net": NET,
        "port": {"type": "OS::Neutron::Port", "properties": {"network": ref("net")}},
        "subnet": {**subnet(ref("net")), "depends_on": "port"},
    }
    found = deps(registry, resources)
    assert found["port"] == {"net"}
    assert found["subnet"] == {"net", "port"}


def test_without_the_rule_only_references_count(registry: Registry) -> None:
    port = {"type": "OS::Neutron::Port", "properties": {"network": ref("net")}}
    tmpl = {"heat_template_version": "2018-08-31", "resources": {**NETWORK, "port": port}}
    definition = build_stack(Template.from_document(tmpl))
    assert definition.dependencies()["port"] == {"net"}
