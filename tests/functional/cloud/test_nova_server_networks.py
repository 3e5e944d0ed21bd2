"""OS::Nova::Server's ``networks`` changed in place on the real Nova, with Heat's matching: an
entry swapped between its network, its subnet and its port, or given the fixed IP it has, keeps
its interface; a changed subnet detaches (and deletes the server's own port) before it attaches
a new one; a reordered list keeps every port; the stack's delete leaves no port."""

from __future__ import annotations

import ipaddress
import uuid
from typing import Any

import openstack.exceptions
import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine, StackIdentity
from tests.functional.cloud.nova_net import ServerNet, server_network

pytestmark = pytest.mark.functional

NICS = """
heat_template_version: 2018-08-31
parameters:
  image: {type: string}
  flavor: {type: string}
  networks: {type: json}
resources:
  server:
    type: OS::Nova::Server
    properties:
      image: {get_param: image}
      flavor: {get_param: flavor}
      user_data_format: RAW
      networks: {get_param: networks}
outputs:
  id: {value: {get_resource: server}}
"""


def _ports(env: CloudEnv, server_id: str) -> dict[str, str]:
    """The server's ports: id to (first) fixed IP."""
    conn = env.connect()
    return {
        str(i.port_id): str(i.fixed_ips[0]["ip_address"])
        for i in conn.compute.server_interfaces(server_id)
    }


def _update(engine: CloudEngine, stack: StackIdentity, networks: list[dict[str, Any]]) -> None:
    engine.update(stack, networks=networks)
    view = engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason


def _create(
    engine: CloudEngine, env: CloudEnv, networks: list[dict[str, Any]]
) -> tuple[StackIdentity, str]:
    name = f"nets-{uuid.uuid4().hex[:8]}"
    stack = engine.create(name, NICS, image=env.image, flavor=env.flavor, networks=networks)
    view = engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    return stack, str(engine.outputs(stack)["id"])


def _delete(engine: CloudEngine, stack: StackIdentity) -> None:
    view = engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason


def _left_on(env: CloudEnv, net: ServerNet) -> list[str]:
    conn = env.connect()
    return [
        str(p.id)
        for p in conn.network.ports(network_id=net.network_id)
        if p.device_owner != "network:dhcp"
    ]


def _in(cidr: str, address: str) -> bool:
    return ipaddress.ip_address(address) in ipaddress.ip_network(cidr)


def test_swaps_keep_the_interface_and_a_new_subnet_replaces_the_port(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    conn = cloud_env.connect()
    with server_network(cloud_env, "nets") as net:
        other_cidr = str(ipaddress.ip_network(net.cidr).supernet(new_prefix=16)).replace(
            ".0.0/16", ".251.0/24"
        )
        stack, server_id = _create(cloud_engine, cloud_env, [{"network": net.network_id}])
        # made after the server, so that Nova's port is on the first subnet
        other = conn.network.create_subnet(
            network_id=net.network_id, ip_version=4, cidr=other_cidr, name=f"{net.network_name}-b"
        )
        ports = _ports(cloud_env, server_id)
        (port0, ip0), *rest = ports.items()
        assert not rest

        # network -> subnet -> port -> network with its fixed IP -> network and subnet
        for networks in (
            [{"subnet": net.subnet_id}],
            [{"port": port0}],
            [{"network": net.network_id, "fixed_ip": ip0}],
            [{"network": net.network_id, "subnet": net.subnet_id}],
            [{"network": net.network_name}],
        ):
            _update(cloud_engine, stack, networks)
            assert _ports(cloud_env, server_id) == ports, networks
        assert cloud_engine.outputs(stack)["id"] == server_id, "updated in place"

        # another subnet: Nova's port goes, the server's own port comes
        _update(cloud_engine, stack, [{"subnet": other.id}])
        ((port1, ip1),) = _ports(cloud_env, server_id).items()
        assert port1 != port0
        assert _in(other_cidr, ip1)
        with pytest.raises(openstack.exceptions.NotFoundException):
            conn.network.get_port(port0)

        # back to the first subnet: the server's own port is detached, deleted, replaced
        _update(cloud_engine, stack, [{"subnet": net.subnet_id}])
        ((port2, ip2),) = _ports(cloud_env, server_id).items()
        assert port2 not in (port0, port1)
        assert _in(net.cidr, ip2)
        with pytest.raises(openstack.exceptions.NotFoundException):
            conn.network.get_port(port1)

        # to the network: the server's own port is kept (and deleted with the server)
        _update(cloud_engine, stack, [{"network": net.network_id}])
        assert list(_ports(cloud_env, server_id)) == [port2]

        _delete(cloud_engine, stack)
        assert _left_on(cloud_env, net) == []


def test_a_reordered_list_of_swapped_entries_keeps_every_port(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    with server_network(cloud_env, "nets") as net:
        fixed = str(ipaddress.ip_network(net.cidr)[250])
        stack, server_id = _create(
            cloud_engine,
            cloud_env,
            [
                {"network": net.network_id},
                {"network": net.network_id, "fixed_ip": fixed},
                {"subnet": net.subnet_id},
            ],
        )
        ports = _ports(cloud_env, server_id)
        assert len(ports) == 3
        assert fixed in ports.values()

        _update(
            cloud_engine,
            stack,
            [
                {"subnet": net.subnet_id},
                {"network": net.network_id},
                {"network": net.network_id, "subnet": net.subnet_id},
            ],
        )
        assert _ports(cloud_env, server_id) == ports

        # one more network entry: attached next to the three kept
        _update(
            cloud_engine,
            stack,
            [
                {"subnet": net.subnet_id},
                {"network": net.network_id},
                {"network": net.network_id, "subnet": net.subnet_id},
                {"network": net.network_id},
            ],
        )
        now = _ports(cloud_env, server_id)
        assert len(now) == 4
        assert set(ports) < set(now)

        _delete(cloud_engine, stack)
        assert _left_on(cloud_env, net) == []
