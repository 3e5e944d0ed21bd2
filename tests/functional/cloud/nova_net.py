"""A network and subnet for server tests, made with openstacksdk (not by a stack)."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from tests.functional.cloud.cloud import CloudEnv


@dataclasses.dataclass(frozen=True)
class ServerNet:
    """A network with one subnet, named after the test run; its .2-.99 are free for fixed IPs."""

    network_id: str
    network_name: str
    subnet_id: str
    cidr: str


@contextmanager
def server_network(env: CloudEnv, prefix: str = "nova") -> Iterator[ServerNet]:
    """Make the network and subnet; delete them (and any port left on them) after."""
    conn = env.connect()
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    network = conn.network.create_network(name=name)
    third = int(uuid.uuid4().int % 200) + 20
    cidr = f"10.{third}.{uuid.uuid4().int % 250}.0/24"
    prefix24 = cidr.rsplit(".", 1)[0]
    try:
        # Neutron hands out addresses from the pool at random; keeping .2-.99 out of it means a
        # test that asks for a fixed IP there never finds it taken by a port made without one.
        subnet = conn.network.create_subnet(
            network_id=network.id,
            name=name,
            ip_version=4,
            cidr=cidr,
            allocation_pools=[{"start": f"{prefix24}.100", "end": f"{prefix24}.250"}],
        )
        yield ServerNet(network.id, name, subnet.id, cidr)
    finally:
        ports = list(conn.network.ports(network_id=network.id))
        servers = {p.device_id for p in ports if str(p.device_owner).startswith("compute:")}
        for server_id in servers:
            conn.compute.delete_server(server_id, ignore_missing=True)
        for server_id in servers:
            found = conn.compute.find_server(server_id, ignore_missing=True)
            if found is not None:
                conn.compute.wait_for_delete(found, interval=0.5)
        for port in conn.network.ports(network_id=network.id):
            if port.device_owner != "network:dhcp":
                conn.network.delete_port(port)
        conn.network.delete_network(network.id)
