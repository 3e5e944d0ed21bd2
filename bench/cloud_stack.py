"""The stack bench/cloud_bench.py builds, as a template and as direct openstacksdk calls.

A net, a subnet, a router with its gateway on the public network, the router interface, a
security group with two rules, and N times a port (a fixed IP on the subnet, the security
group), a server on that port and a floating IP on the public network for the port (after the
interface, which a floating IP needs). Every name starts with the run's prefix (``bench-...``),
so that what a run leaves behind is found and removed, and nothing else is touched.

:func:`critical_path` makes the same resources straight with openstacksdk in the best parallel
order, one thread per server, as the yardstick of what the cloud itself needs.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import time
from collections.abc import Callable, Iterable
from typing import Any

from openstack.connection import Connection

from thermik.clients.counting import CallCounter

CIDR = "10.20.0.0/22"
#: The security group's rules (Heat's rule properties; the SDK gets the same).
RULES: list[dict[str, Any]] = [
    {"protocol": "tcp", "port_range_min": 22, "port_range_max": 22},
    {"protocol": "icmp"},
]
#: Quotas the bench raises (never lowers) for its project and admin: N = 30 and other users.
COMPUTE_QUOTAS = {"instances": 200, "cores": 400, "ram": 409600}
NETWORK_QUOTAS = {
    "ports": 1000,
    "floating_ips": 300,
    "networks": 100,
    "subnets": 100,
    "routers": 50,
    "security_groups": 100,
    "security_group_rules": 1000,
}


@dataclasses.dataclass(frozen=True)
class Cloud:
    """What the stack is built from: the image, the flavor and the public network (names)."""

    image: str
    flavor: str
    public: str


def resource_count(servers: int) -> int:
    """How many resources a stack of ``servers`` servers has (Heat's count: rules are part of
    the security group)."""
    return 5 + 3 * servers


def template(prefix: str, servers: int, cloud: Cloud) -> dict[str, Any]:
    """The HOT template of the stack, every name starting with ``prefix``."""
    resources: dict[str, Any] = {
        "net": {"type": "OS::Neutron::Net", "properties": {"name": f"{prefix}-net"}},
        "subnet": {
            "type": "OS::Neutron::Subnet",
            "properties": {
                "name": f"{prefix}-subnet",
                "network": {"get_resource": "net"},
                "cidr": CIDR,
                "ip_version": 4,
            },
        },
        "router": {
            "type": "OS::Neutron::Router",
            "properties": {
                "name": f"{prefix}-router",
                "external_gateway_info": {"network": cloud.public},
            },
        },
        "iface": {
            "type": "OS::Neutron::RouterInterface",
            "properties": {
                "router": {"get_resource": "router"},
                "subnet": {"get_resource": "subnet"},
            },
        },
        "sg": {
            "type": "OS::Neutron::SecurityGroup",
            "properties": {"name": f"{prefix}-sg", "rules": RULES},
        },
    }
    for i in range(servers):
        resources[f"port{i}"] = {
            "type": "OS::Neutron::Port",
            "properties": {
                "name": f"{prefix}-port{i}",
                "network": {"get_resource": "net"},
                "fixed_ips": [{"subnet": {"get_resource": "subnet"}}],
                "security_groups": [{"get_resource": "sg"}],
            },
        }
        resources[f"server{i}"] = {
            "type": "OS::Nova::Server",
            "properties": {
                "name": f"{prefix}-server{i}",
                "image": cloud.image,
                "flavor": cloud.flavor,
                "networks": [{"port": {"get_resource": f"port{i}"}}],
            },
        }
        resources[f"fip{i}"] = {
            "type": "OS::Neutron::FloatingIP",
            "properties": {
                "floating_network": cloud.public,
                "port_id": {"get_resource": f"port{i}"},
            },
        }
    return {"heat_template_version": "2018-08-31", "resources": resources}


def types_of(tmpl: dict[str, Any]) -> set[str]:
    """The resource types ``tmpl`` uses."""
    return {str(r["type"]) for r in tmpl["resources"].values()}


@dataclasses.dataclass
class PathResult:
    """One direct create and delete: times (s) and the requests each sent, by service."""

    network_seconds: float
    create_seconds: float
    delete_seconds: float
    create_requests: dict[str, int]
    delete_requests: dict[str, int]
    floating_ips: list[str]


def _by_service(counts: Iterable[tuple[tuple[str, str], int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for (service, _method), n in counts:
        out[service] = out.get(service, 0) + n
    return {service: n for service, n in out.items() if n}


@dataclasses.dataclass
class _Made:
    """What the direct path made: the network part, and (port, server, floating IP) each."""

    network: Any = None
    subnet: Any = None
    router: Any = None
    group: Any = None
    servers: list[tuple[Any, Any, Any]] = dataclasses.field(default_factory=list)


class _Direct:
    """The direct calls, on one connection shared by a pool of threads."""

    def __init__(self, conn: Connection, prefix: str, cloud: Cloud, poll: float) -> None:
        self.conn, self.net, self.prefix, self.poll = conn, conn.network, prefix, poll
        # The look-ups are part of the create: the template names the image, flavor, network.
        self.image = conn.image.find_image(cloud.image, ignore_missing=False).id
        self.flavor = conn.compute.find_flavor(cloud.flavor, ignore_missing=False).id
        self.public = self.net.find_network(cloud.public, ignore_missing=False).id
        self.made = _Made()

    def network(self) -> None:
        self.made.network = self.net.create_network(name=f"{self.prefix}-net")
        self.made.subnet = self.net.create_subnet(
            name=f"{self.prefix}-subnet", network_id=self.made.network.id, cidr=CIDR, ip_version=4
        )

    def router(self) -> None:
        self.made.router = self.net.create_router(
            name=f"{self.prefix}-router", external_gateway_info={"network_id": self.public}
        )

    def security_group(self, pool: concurrent.futures.Executor) -> None:
        group = self.net.create_security_group(name=f"{self.prefix}-sg")
        rules = [
            pool.submit(
                self.net.create_security_group_rule,
                security_group_id=group.id,
                direction="ingress",
                ethertype="IPv4",
                **rule,
            )
            for rule in RULES
        ]
        for rule in rules:
            rule.result()
        self.made.group = group

    def server(self, i: int, iface: concurrent.futures.Future[Any]) -> tuple[Any, Any, Any]:
        made = self.made
        port = self.net.create_port(
            name=f"{self.prefix}-port{i}",
            network_id=made.network.id,
            fixed_ips=[{"subnet_id": made.subnet.id}],
            security_group_ids=[made.group.id],
        )
        server = self.conn.compute.create_server(
            name=f"{self.prefix}-server{i}",
            image_id=self.image,
            flavor_id=self.flavor,
            networks=[{"port": port.id}],
        )
        iface.result()
        fip = self.net.create_ip(floating_network_id=self.public, port_id=port.id)
        self.conn.compute.wait_for_server(server, status="ACTIVE", interval=self.poll, wait=600)
        return port, server, fip

    def create(self, pool: concurrent.futures.Executor, servers: int) -> float:
        """Make everything; the seconds the network part took."""
        started = time.perf_counter()
        parts = [
            pool.submit(self.network),
            pool.submit(self.router),
            pool.submit(self.security_group, pool),
        ]
        made = self.made

        def interface() -> Any:
            parts[0].result()
            parts[1].result()
            return self.net.add_interface_to_router(made.router, subnet=made.subnet.id)

        # Ports need the subnet and the security group, not the router.
        iface = pool.submit(interface)
        parts[0].result()
        parts[2].result()
        jobs = [pool.submit(self.server, i, iface) for i in range(servers)]
        iface.result()
        network_seconds = time.perf_counter() - started
        made.servers = [job.result() for job in jobs]
        return network_seconds

    def undo_server(self, pool: concurrent.futures.Executor, item: tuple[Any, Any, Any]) -> None:
        port, server, fip = item
        gone = pool.submit(self.net.delete_ip, fip)
        self.conn.compute.delete_server(server)
        self.conn.compute.wait_for_delete(server, interval=self.poll, wait=600)
        gone.result()
        self.net.delete_port(port, ignore_missing=True)

    def delete(self, pool: concurrent.futures.Executor) -> None:
        made = self.made
        for job in [pool.submit(self.undo_server, pool, item) for item in made.servers]:
            job.result()
        self.net.remove_interface_from_router(made.router, subnet=made.subnet.id)
        jobs = [
            pool.submit(self.net.delete_router, made.router),
            pool.submit(self.net.delete_security_group, made.group),
        ]
        self.net.delete_network(made.network)
        for job in jobs:
            job.result()


def critical_path(
    conn: Connection,
    prefix: str,
    servers: int,
    cloud: Cloud,
    poll: float,
    created: Callable[[], None] = lambda: None,
) -> PathResult:
    """Create the stack's resources with ``conn`` in the best parallel order, wait for every
    server to be ACTIVE, call ``created``, then delete them all. ``conn`` is a fresh
    connection, shared by the threads: its requests are counted from its first, the token
    request, on."""
    counter = CallCounter()
    counter.watch(conn)
    started = time.perf_counter()
    direct = _Direct(conn, prefix, cloud, poll)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2 * servers + 4) as pool:
        network_seconds = direct.create(pool, servers)
        create_seconds = time.perf_counter() - started
        made = counter.snapshot()
        created()
        started = time.perf_counter()
        direct.delete(pool)
        delete_seconds = time.perf_counter() - started
    deleted = counter.snapshot()
    return PathResult(
        network_seconds,
        create_seconds,
        delete_seconds,
        _by_service(made.items()),
        _by_service((k, n - made.get(k, 0)) for k, n in deleted.items()),
        [fip.id for _, _, fip in direct.made.servers],
    )


def raise_quotas(admin: Connection, projects: Iterable[str]) -> list[str]:
    """Raise the compute and network quotas of ``projects`` (names) to the bench's, where they
    are lower; what was raised."""
    raised = []
    identity: Any = admin.identity
    for name in projects:
        project = identity.find_project(name, domain_id="default", ignore_missing=False)
        compute = admin.get_compute_quotas(project.id)
        more = {k: v for k, v in COMPUTE_QUOTAS.items() if 0 <= int(compute[k]) < v}
        if more:
            admin.set_compute_quotas(project.id, **more)
            raised += [f"{name} {k}={v}" for k, v in more.items()]
        network = admin.network.get_quota(project.id)
        more = {k: v for k, v in NETWORK_QUOTAS.items() if 0 <= int(getattr(network, k)) < v}
        if more:
            admin.network.update_quota(project.id, **more)
            raised += [f"{name} {k}={v}" for k, v in more.items()]
    return raised


def leftovers(conn: Connection, prefix: str, floating_ips: Iterable[str] = ()) -> list[str]:
    """What of a run named ``prefix`` is still in the cloud (kind and name or id)."""
    found = [f"server {s.name}" for s in conn.compute.servers() if s.name.startswith(prefix)]
    net = conn.network
    for kind, items in (
        ("port", net.ports()),
        ("router", net.routers()),
        ("network", net.networks()),
        ("security group", net.security_groups()),
    ):
        found += [f"{kind} {x.name}" for x in items if (x.name or "").startswith(prefix)]
    wanted = set(floating_ips)
    found += [f"floating IP {ip.id}" for ip in net.ips() if ip.id in wanted]
    return found


def sweep(conn: Connection, prefix: str, log: Callable[[str], None] = print) -> None:
    """Delete everything of a run named ``prefix`` (what a failed run left behind)."""
    net = conn.network
    ports = {p.id for p in net.ports() if (p.name or "").startswith(prefix)}
    for ip in net.ips():
        if ip.port_id in ports:
            log(f"removing floating IP {ip.floating_ip_address}")
            net.delete_ip(ip)
    servers = [s for s in conn.compute.servers() if s.name.startswith(prefix)]
    for server in servers:
        log(f"removing server {server.name}")
        conn.compute.delete_server(server)
    for server in servers:
        conn.compute.wait_for_delete(server, interval=1, wait=300)
    for port_id in ports:
        net.delete_port(port_id, ignore_missing=True)
    for router in [r for r in net.routers() if (r.name or "").startswith(prefix)]:
        log(f"removing router {router.name}")
        for port in net.ports(device_id=router.id, device_owner="network:router_interface"):
            for ip in port.fixed_ips:
                net.remove_interface_from_router(router, subnet=ip["subnet_id"])
        net.delete_router(router)
    for network in [n for n in net.networks() if (n.name or "").startswith(prefix)]:
        log(f"removing network {network.name}")
        net.delete_network(network)
    for group in [g for g in net.security_groups() if (g.name or "").startswith(prefix)]:
        net.delete_security_group(group)
