"""OS::Nova::Server on the real Nova (fake virt driver): create with its creation tag and its
attributes, the request budget, update in place, check, suspend and resume, delete."""

from __future__ import annotations

import base64
import contextlib
import uuid

import openstack.exceptions
import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from tests.functional.cloud.nova_net import server_network

pytestmark = pytest.mark.functional

SERVER = """
    type: OS::Nova::Server
    properties:
      name: {get_param: name}
      image: {get_param: image}
      flavor: {get_param: flavor}
      networks: [{network: {get_param: network}}]
      metadata: {colour: {get_param: colour}, size: {n: 1}}
      tags: [{get_param: colour}]
      user_data_format: RAW
      user_data: "#!/bin/sh\\necho hello\\n"
"""
PARAMETERS = """
heat_template_version: 2018-08-31
parameters:
  image: {type: string}
  flavor: {type: string}
  network: {type: string}
  name: {type: string}
  colour: {type: string, default: blue}
  count: {type: number, default: 1}
"""
TEMPLATE = (
    PARAMETERS
    + "resources:\n  server:"
    + SERVER
    + """
outputs:
  id: {value: {get_resource: server}}
  first_address: {value: {get_attr: [server, first_address]}}
  networks: {value: {get_attr: [server, networks]}}
  addresses: {value: {get_attr: [server, addresses]}}
  name: {value: {get_attr: [server, name]}}
  tags: {value: {get_attr: [server, tags]}}
  status: {value: {get_attr: [server, show, status]}}
  novnc: {value: {get_attr: [server, console_urls, novnc]}}
"""
)
GROUP = (
    PARAMETERS
    + """resources:
  servers:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: count}
      resource_def:"""
    + SERVER.replace("\n    ", "\n          ").replace(
        "{get_param: name}", "{list_join: ['-', [{get_param: name}, '%index%']]}"
    )
)


def _servers(env: CloudEnv, prefix: str) -> list[object]:
    conn = env.connect()
    return [s for s in conn.compute.servers() if str(s.name).startswith(prefix)]


def test_a_server_is_created_tagged_updated_checked_suspended_and_deleted(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    conn = cloud_env.connect()
    name = f"nova-{uuid.uuid4().hex[:8]}"
    with server_network(cloud_env) as net:
        before = cloud_engine.requests
        stack = cloud_engine.create(
            name,
            TEMPLATE,
            image=cloud_env.image,
            flavor=cloud_env.flavor,
            network=net.network_name,
            name=name,
        )
        view = cloud_engine.wait(stack)
        assert view.status == "COMPLETE", view.status_reason
        print(f"requests for 1 server: {cloud_engine.requests - before}")
        outputs = cloud_engine.outputs(stack)
        server = conn.compute.get_server(outputs["id"])
        assert server.name == name
        assert server.metadata == {"colour": "blue", "size": '{"n": 1}'}
        assert "blue" in server.tags
        assert any(t.startswith("thermik-") for t in server.tags), "the creation tag"
        seen_by_admin = cloud_env.connect(admin=True).compute.get_server(server.id)
        assert base64.b64decode(seen_by_admin.user_data) == b"#!/bin/sh\necho hello\n"
        address = outputs["first_address"]
        assert address.startswith(net.cidr.rsplit(".", 1)[0])
        assert outputs["networks"][net.network_name] == [address]
        assert outputs["networks"][net.network_id] == [address]
        entry = outputs["addresses"][net.network_name][0]
        assert entry["addr"] == address
        assert entry["port"] == next(iter(conn.network.ports(device_id=server.id))).id
        assert entry["subnets"][0]["id"] == net.subnet_id
        assert outputs["name"] == name
        assert isinstance(outputs["novnc"], str)
        assert outputs["tags"] == ["blue"]
        assert outputs["status"] == "ACTIVE"

        cloud_engine.update(stack, colour="red", name=f"{name}-b")
        view = cloud_engine.wait(stack)
        assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
        server = conn.compute.get_server(server.id)
        assert server.name == f"{name}-b", "renamed in place"
        assert server.metadata["colour"] == "red"
        assert "red" in server.tags
        assert "blue" not in server.tags
        assert any(t.startswith("thermik-") for t in server.tags), "the creation tag stays"

        assert cloud_engine.check(stack).status == "COMPLETE"
        view = cloud_engine.suspend(stack)
        assert (view.action, view.status) == ("SUSPEND", "COMPLETE"), view.status_reason
        assert conn.compute.get_server(server.id).status == "SUSPENDED"
        view = cloud_engine.resume(stack)
        assert (view.action, view.status) == ("RESUME", "COMPLETE"), view.status_reason
        assert conn.compute.get_server(server.id).status == "ACTIVE"

        view = cloud_engine.delete(stack)
        assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
        assert not _servers(cloud_env, name)
        assert not list(conn.network.ports(network_id=net.network_id, device_owner="compute:nova"))


def test_five_servers_cost_one_flavor_and_image_look_up(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    name = f"nova-{uuid.uuid4().hex[:8]}"
    with server_network(cloud_env) as net:
        before = cloud_engine.requests
        stack = cloud_engine.create(
            name,
            GROUP,
            image=cloud_env.image,
            flavor=cloud_env.flavor,
            network=net.network_name,
            name=name,
            count=5,
        )
        view = cloud_engine.wait(stack)
        assert view.status == "COMPLETE", view.status_reason
        used = cloud_engine.requests - before
        assert cloud_engine.engine.cloud is not None
        print(f"requests for 5 servers: {used}", cloud_engine.engine.cloud.pool.counter.snapshot())
        assert len(_servers(cloud_env, name)) == 5
        assert used <= 45, used  # 5 creates, about 2.5 polls each, the look-ups once
        view = cloud_engine.delete(stack)
        assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
        assert not _servers(cloud_env, name)


PORTS = """
heat_template_version: 2018-08-31
parameters:
  image: {type: string}
  flavor: {type: string}
  subnet: {type: string}
  port: {type: string}
  network: {type: string}
  fixed_ip: {type: string}
  floating_ip: {type: string}
resources:
  server:
    type: OS::Nova::Server
    properties:
      image: {get_param: image}
      flavor: {get_param: flavor}
      user_data_format: RAW
      networks:
        - {subnet: {get_param: subnet}, floating_ip: {get_param: floating_ip}}
        - port: {get_param: port}
        - {network: {get_param: network}, fixed_ip: {get_param: fixed_ip}}
outputs:
  id: {value: {get_resource: server}}
"""


def test_ports_the_server_makes_given_ports_and_fixed_ips(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    conn = cloud_env.connect()
    name = f"nova-{uuid.uuid4().hex[:8]}"
    with server_network(cloud_env) as net:
        port = conn.network.create_port(network_id=net.network_id, name=f"{name}-mine")
        fixed_ip = net.cidr.rsplit(".", 1)[0] + ".77"
        public = conn.network.find_network(cloud_env.public_network, ignore_missing=False)
        router = conn.network.create_router(
            name=name, external_gateway_info={"network_id": public.id}
        )
        fip = None
        try:
            conn.network.add_interface_to_router(router, subnet=net.subnet_id)
            fip = conn.network.create_ip(floating_network_id=public.id)
            stack = cloud_engine.create(
                name,
                PORTS,
                image=cloud_env.image,
                flavor=cloud_env.flavor,
                subnet=net.subnet_id,
                port=port.name,
                network=net.network_id,
                fixed_ip=fixed_ip,
                floating_ip=fip.id,
            )
            view = cloud_engine.wait(stack)
            assert view.status == "COMPLETE", view.status_reason
            server_id = cloud_engine.outputs(stack)["id"]
            attached = {p.id: p for p in conn.network.ports(device_id=server_id)}
            assert port.id in attached
            internal = [p for p in attached.values() if p.name == "server-port-0"]
            assert len(internal) == 1, "the port made for the subnet entry"
            assert internal[0].description.startswith("thermik-"), "the creation tag"
            assert conn.network.get_ip(fip.id).port_id == internal[0].id, "floating IP associated"
            addresses = [ip["ip_address"] for p in attached.values() for ip in p.fixed_ips]
            assert fixed_ip in addresses, addresses
            view = cloud_engine.delete(stack)
            assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
            left = {p.id for p in conn.network.ports(network_id=net.network_id)}
            assert internal[0].id not in left, "the server's own port goes with it"
            assert port.id in left, "the user's port stays"
        finally:
            if fip is not None:
                conn.network.delete_ip(fip)
            with contextlib.suppress(openstack.exceptions.NotFoundException):
                conn.network.remove_interface_from_router(router, subnet=net.subnet_id)
            conn.network.delete_router(router)


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


def test_networks_change_in_place_by_attaching_and_detaching(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    conn = cloud_env.connect()
    name = f"nova-{uuid.uuid4().hex[:8]}"
    with server_network(cloud_env) as net:
        port = conn.network.create_port(network_id=net.network_id, name=f"{name}-mine")
        on_net = [{"network": net.network_id}]
        stack = cloud_engine.create(
            name, NICS, image=cloud_env.image, flavor=cloud_env.flavor, networks=on_net
        )
        view = cloud_engine.wait(stack)
        assert view.status == "COMPLETE", view.status_reason
        server_id = cloud_engine.outputs(stack)["id"]
        first = [i.port_id for i in conn.compute.server_interfaces(server_id)]
        assert len(first) == 1

        cloud_engine.update(stack, networks=[*on_net, {"port": port.id}])
        view = cloud_engine.wait(stack)
        assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
        assert cloud_engine.outputs(stack)["id"] == server_id, "updated in place"
        ports = {i.port_id for i in conn.compute.server_interfaces(server_id)}
        assert ports == {first[0], port.id}

        cloud_engine.update(stack, networks=[{"port": port.id}])
        view = cloud_engine.wait(stack)
        assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
        assert cloud_engine.outputs(stack)["id"] == server_id, "updated in place"
        ports = {i.port_id for i in conn.compute.server_interfaces(server_id)}
        assert ports == {port.id}

        view = cloud_engine.delete(stack)
        assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
        assert conn.network.get_port(port.id).device_id == "", "the user's port stays, free"
