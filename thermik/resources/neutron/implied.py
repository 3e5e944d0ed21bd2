"""The orderings Neutron needs that templates leave unsaid, as Heat's types infer them.

Heat's Neutron and Nova types add dependencies of their own (``add_dependencies``); these
functions are those rules, read off a :class:`~thermik.template.implied.StackView`:

* a port, a server, a router's gateway on a network waits for every subnet of that network
  in the stack (Neutron gives an address only on an existing subnet);
* a floating IP on an external network waits for the routers whose gateway is on that
  network and for the router interface on its port's subnet: without them Neutron finds no
  route from the external network to the port ("External network ... is not reachable");
  being required by it, that interface is also removed only after the floating IP (Neutron
  refuses to remove an interface a floating IP uses);
* a floating IP association waits for the router interface on its port's subnet;
* an extra route set waits for the router interfaces of its router: Neutron adds a route only
  through a nexthop on a subnet the router is attached to ("nexthop is not connected with
  router"); being required by it, an interface is also removed only after the routes.

Values are compared as written (see :class:`StackView`): ``{get_resource: net}`` on both
sides, or the same name or id.
"""

from __future__ import annotations

from typing import Any

from thermik.resources.stack_view import StackView

SUBNET = "OS::Neutron::Subnet"
PORT = "OS::Neutron::Port"
ROUTER = "OS::Neutron::Router"
INTERFACE = "OS::Neutron::RouterInterface"


def either(stack: StackView, name: str, key: str, old: str) -> Any:
    """Property ``key`` of ``name``, or its old (hidden) name ``old``."""
    found = stack.prop(name, key)
    return found if found is not None else stack.prop(name, old)


def subnet_network(stack: StackView, subnet: str) -> Any:
    """The network subnet ``subnet`` is on, as written."""
    return either(stack, subnet, "network", "network_id")


def subnets_on(stack: StackView, network: Any) -> list[str]:
    """The subnets of the stack on ``network`` (none for an unknown network)."""
    if network is None:
        return []
    return [s for s in stack.of_type(SUBNET) if subnet_network(stack, s) == network]


def port_requirements(name: str, stack: StackView) -> list[str]:
    """A port waits for the subnets of its network."""
    return subnets_on(stack, either(stack, name, "network", "network_id"))


def server_requirements(name: str, stack: StackView) -> list[str]:
    """A server waits for the subnets of the networks it is on; a network entry that names
    no network (a port, or a network only known at run time) may be on any of them, and a
    subnet whose network is not known may be on any network: both wait for them too."""
    networks = stack.prop(name, "networks")
    if not isinstance(networks, list) or not networks:
        return []
    wanted = [n.get("network") if isinstance(n, dict) else None for n in networks]
    found = []
    for subnet in stack.of_type(SUBNET):
        on = subnet_network(stack, subnet)
        if on is None or any(net is None or net == on for net in wanted):
            found.append(subnet)
    return found


def router_requirements(name: str, stack: StackView) -> list[str]:
    """A router with a gateway waits for the subnets of the gateway's network."""
    return subnets_on(stack, stack.prop(name, "external_gateway_info", "network"))


def fixed_subnets(stack: StackView, port: str) -> list[Any]:
    """The subnets port ``port`` names in its fixed IPs, as written."""
    ips = stack.prop(port, "fixed_ips")
    if not isinstance(ips, list):
        return []
    return [
        ip.get("subnet") if ip.get("subnet") is not None else ip.get("subnet_id")
        for ip in ips
        if isinstance(ip, dict)
    ]


def interface_subnet(stack: StackView, interface: str) -> Any:
    """The subnet router interface ``interface`` attaches, as written."""
    return either(stack, interface, "subnet", "subnet_id")


def _on_subnet(stack: StackView, port: str, subnet: Any, *, guess: bool) -> bool:
    """Whether port ``port`` has an address on ``subnet``. A port without fixed IPs gets one
    on a subnet of its network; with ``guess`` (a floating IP's rule) it counts as on
    ``subnet`` when that is a subnet of the stack on its network, or when that cannot be
    told before the stack runs (Heat then asks Neutron; waiting costs only time)."""
    named = fixed_subnets(stack, port)
    if named:
        return subnet is not None and subnet in named
    if not guess:
        return False
    network = either(stack, port, "network", "network_id")
    owner = stack.resource_named(subnet)
    if network is None or owner is None or stack.type_of(owner) != SUBNET:
        return True
    return bool(subnet_network(stack, owner) == network)


def interfaces_for_ports(stack: StackView, ports: list[str], *, guess: bool) -> list[str]:
    """The router interfaces of the stack on a subnet one of ``ports`` is on."""
    return [
        interface
        for interface in stack.of_type(INTERFACE)
        if any(
            _on_subnet(stack, p, interface_subnet(stack, interface), guess=guess) for p in ports
        )
    ]


def floating_ip_requirements(name: str, stack: StackView) -> list[str]:
    """A floating IP waits for the routers with a gateway on its network and for the router
    interfaces that reach its port."""
    network = either(stack, name, "floating_network", "floating_network_id")
    routers = [
        router
        for router in stack.of_type(ROUTER)
        if network is not None
        and stack.prop(router, "external_gateway_info", "network") == network
    ]
    ports = [d for d in stack.requires(name) if stack.type_of(d) == PORT]
    return routers + interfaces_for_ports(stack, ports, guess=True)


def association_requirements(name: str, stack: StackView) -> list[str]:
    """A floating IP association waits for the router interfaces on its port's subnets."""
    ports = [d for d in stack.requires(name) if stack.type_of(d) == PORT]
    return interfaces_for_ports(stack, ports, guess=False)


def extra_route_set_requirements(name: str, stack: StackView) -> list[str]:
    """An extra route set waits for the router interfaces of its router (Heat's rule: every
    interface of the stack naming the same router, whichever subnet it attaches)."""
    router = stack.prop(name, "router")
    if router is None:
        return []
    return [
        interface
        for interface in stack.of_type(INTERFACE)
        if either(stack, interface, "router", "router_id") == router
    ]
