"""The loopback cloud does what the engine will ask of it: a plain member boots a server on a
Neutron port of a network of their own, the port is bound and ACTIVE, and the server is deleted.
"""

from __future__ import annotations

import time
import uuid

import pytest
from openstack.connection import Connection
from openstack.exceptions import NotFoundException

from tests.functional.cloud.cloud import CloudEnv

pytestmark = pytest.mark.functional


def wait_for_port_status(conn: Connection, port_id: str, status: str, seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while True:
        current = conn.network.get_port(port_id).status
        if current == status or time.monotonic() > deadline:
            return str(current)
        time.sleep(0.5)


def wait_until_gone(conn: Connection, server_id: str, seconds: float) -> bool:
    """Whether the server is gone (404) within ``seconds``; Nova shows it DELETED first."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            conn.compute.get_server(server_id)
        except NotFoundException:
            return True
        time.sleep(0.5)
    return False


def test_a_server_boots_on_a_port_and_is_deleted(cloud_env: CloudEnv) -> None:
    conn = cloud_env.connect()
    name = f"smoke-{uuid.uuid4().hex[:8]}"
    image = conn.image.find_image(cloud_env.image, ignore_missing=False)
    flavor = conn.compute.find_flavor(cloud_env.flavor, ignore_missing=False)
    net = conn.network.create_network(name=name)
    try:
        conn.network.create_subnet(network_id=net.id, cidr="10.99.0.0/24", ip_version=4)
        port = conn.network.create_port(network_id=net.id, name=name)
        server = conn.compute.create_server(
            name=name, image_id=image.id, flavor_id=flavor.id, networks=[{"port": port.id}]
        )
        server = conn.compute.wait_for_server(server, status="ACTIVE", interval=0.5, wait=120)
        assert wait_for_port_status(conn, port.id, "ACTIVE", 30) == "ACTIVE"
        # Only admin sees a port's binding.
        bound = cloud_env.connect(admin=True).network.get_port(port.id)
        assert bound.device_id == server.id
        assert bound.binding_vif_type == "ovs"
        fixed = [a["addr"] for addrs in server.addresses.values() for a in addrs]
        assert fixed == [bound.fixed_ips[0]["ip_address"]]
        conn.compute.delete_server(server)
        assert wait_until_gone(conn, server.id, 120)
    finally:
        for leftover in conn.compute.servers(name=name):
            conn.compute.delete_server(leftover)
            conn.compute.wait_for_delete(leftover, interval=0.5, wait=120)
        for leftover_port in conn.network.ports(network_id=net.id):
            conn.network.delete_port(leftover_port)
        conn.network.delete_network(net)
