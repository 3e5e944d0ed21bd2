"""The shapes of the public Heat example templates (openstack/heat-templates ``hot/``), written
anew, created and deleted on the loopback cloud with nothing left behind (issue 16): a server
behind a port, a security group and a floating IP on a network of its own; a server with
volumes attached through a ResourceGroup of a nested template; a server booted with a
cloud-config and a script joined by a multipart config; and a server the stack only adopts by
``external_id`` (and leaves in place)."""

from __future__ import annotations

import base64
import uuid
from typing import Any

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CTX, CloudEngine
from tests.functional.cloud.leftovers import leftovers
from tests.functional.cloud.neutron_leftovers import cleaned
from thermik.api.boundary import StackIdentity, StackRequest
from thermik.template.loader import load_document

pytestmark = pytest.mark.functional

NETWORKED = """
heat_template_version: 2016-10-14
description: A web server on a new network, reachable through a floating IP.
parameters:
  name: {type: string}
  image: {type: string}
  flavor: {type: string}
  public: {type: string}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: {get_param: name}}
  subnet:
    type: OS::Neutron::Subnet
    properties:
      network: {get_resource: net}
      cidr: 10.91.4.0/24
      allocation_pools: [{start: 10.91.4.20, end: 10.91.4.60}]
  router:
    type: OS::Neutron::Router
    properties: {external_gateway_info: {network: {get_param: public}}}
  uplink:
    type: OS::Neutron::RouterInterface
    properties: {router: {get_resource: router}, subnet: {get_resource: subnet}}
  web_access:
    type: OS::Neutron::SecurityGroup
    properties:
      description: ping, ssh and http in
      rules:
        - {protocol: icmp, remote_ip_prefix: 0.0.0.0/0}
        - {protocol: tcp, port_range_min: 22, port_range_max: 22}
        - {protocol: tcp, port_range_min: 80, port_range_max: 80}
  front_port:
    type: OS::Neutron::Port
    properties:
      network: {get_resource: net}
      fixed_ips: [{subnet: {get_resource: subnet}}]
      security_groups: [{get_resource: web_access}]
  front:
    type: OS::Nova::Server
    properties:
      image: {get_param: image}
      flavor: {get_param: flavor}
      networks: [{port: {get_resource: front_port}}]
  front_ip:
    type: OS::Neutron::FloatingIP
    properties:
      floating_network: {get_param: public}
      port_id: {get_resource: front_port}
outputs:
  front_private: {value: {get_attr: [front, first_address]}}
  front_public: {value: {get_attr: [front_ip, floating_ip_address]}}
"""

VOLUMES = """
heat_template_version: 2016-10-14
description: A server with a count of volumes, each attached by a member of a group.
parameters:
  image: {type: string}
  flavor: {type: string}
  count: {type: number, default: 2}
resources:
  server:
    type: OS::Nova::Server
    properties:
      image: {get_param: image}
      flavor: {get_param: flavor}
      networks: [{allocate_network: none}]
  disks:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: count}
      resource_def:
        type: disk.yaml
        properties:
          server: {get_resource: server}
          label: disk-%index%
outputs:
  volumes: {value: {get_attr: [disks, volume]}}
  server: {value: {get_resource: server}}
"""

DISK = """
heat_template_version: 2016-10-14
parameters:
  server: {type: string}
  label: {type: string}
resources:
  volume:
    type: OS::Cinder::Volume
    properties: {size: 1, name: {get_param: label}}
  attachment:
    type: OS::Cinder::VolumeAttachment
    properties:
      instance_uuid: {get_param: server}
      volume_id: {get_resource: volume}
outputs:
  volume: {value: {get_resource: volume}}
"""

CONFIGURED = """
heat_template_version: 2016-10-14
description: A server booted with a cloud-config and a shell script in one multipart body.
parameters:
  image: {type: string}
  flavor: {type: string}
resources:
  accounts:
    type: OS::Heat::CloudConfig
    properties:
      cloud_config:
        users: [default, {name: operator, shell: /bin/sh}]
        write_files: [{path: /etc/motd, content: configured by its stack}]
  greeting:
    type: OS::Heat::SoftwareConfig
    properties:
      group: ungrouped
      config: |
        #!/bin/sh
        echo booted > /var/tmp/greeting
  boot:
    type: OS::Heat::MultipartMime
    properties:
      parts:
        - config: {get_resource: accounts}
        - config: {get_resource: greeting}
          type: text
  server:
    type: OS::Nova::Server
    properties:
      image: {get_param: image}
      flavor: {get_param: flavor}
      networks: [{allocate_network: none}]
      user_data_format: RAW
      user_data: {get_resource: boot}
outputs:
  server: {value: {get_resource: server}}
"""

ADOPTED = """
heat_template_version: 2016-10-14
parameters:
  existing: {type: string}
resources:
  known:
    type: OS::Nova::Server
    external_id: {get_param: existing}
outputs:
  name: {value: {get_attr: [known, name]}}
"""


def create_complete(
    engine: CloudEngine, stack_name: str, template: str, files: dict[str, str], /, **params: Any
) -> StackIdentity:
    """Create the stack (with its ``files``) and wait for it to be CREATE_COMPLETE."""
    request = StackRequest(
        name=stack_name, template=load_document(template), parameters=params, files=files
    )
    stack = engine.service.create_stack(CTX, request)
    view = engine.wait(stack)
    assert (view.action, view.status) == ("CREATE", "COMPLETE"), view.status_reason
    return stack


def deleted_without_leftovers(engine: CloudEngine, conn: Any, stack: StackIdentity) -> None:
    view = engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert leftovers(conn, stack.id) == []


def test_a_server_behind_a_port_and_a_floating_ip_on_its_own_network(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    name = f"rw-net-{uuid.uuid4().hex[:8]}"
    with cleaned(cloud_engine, cloud_env, name) as conn:
        stack = create_complete(
            cloud_engine,
            name,
            NETWORKED,
            {},
            name=name,
            image=cloud_env.image,
            flavor=cloud_env.flavor,
            public=cloud_env.public_network,
        )
        try:
            out = cloud_engine.outputs(stack)
            assert out["front_private"].startswith("10.91.4.")
            assert out["front_public"].startswith("198.51.100.")
            assert leftovers(conn, stack.id), "the cloud holds what the stack made"
        finally:
            deleted_without_leftovers(cloud_engine, conn, stack)
        addresses = {ip.floating_ip_address for ip in conn.network.ips()}
        assert out["front_public"] not in addresses


def test_a_group_of_nested_stacks_attaches_volumes_to_one_server(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    conn = cloud_env.connect()
    stack = create_complete(
        cloud_engine,
        f"rw-vol-{uuid.uuid4().hex[:8]}",
        VOLUMES,
        {"disk.yaml": DISK},
        image=cloud_env.image,
        flavor=cloud_env.flavor,
    )
    out = cloud_engine.outputs(stack)
    assert len(out["volumes"]) == 2
    for index, volume_id in enumerate(out["volumes"]):
        volume = conn.block_storage.get_volume(volume_id)
        assert volume.name == f"disk-{index}"
        assert volume.status == "in-use"
        assert [a["server_id"] for a in volume.attachments] == [out["server"]]
    deleted_without_leftovers(cloud_engine, conn, stack)
    assert not [v for v in conn.block_storage.volumes() if v.id in out["volumes"]]


def test_a_server_boots_with_a_multipart_of_cloud_config_and_script(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    conn = cloud_env.connect()
    stack = create_complete(
        cloud_engine,
        f"rw-boot-{uuid.uuid4().hex[:8]}",
        CONFIGURED,
        {},
        image=cloud_env.image,
        flavor=cloud_env.flavor,
    )
    server_id = cloud_engine.outputs(stack)["server"]
    # Only an administrator reads a server's user_data back from Nova.
    held = cloud_env.connect(admin=True).compute.get_server(server_id).user_data
    body = base64.b64decode(held).decode()
    assert "multipart/mixed" in body
    assert "#cloud-config" in body
    assert "echo booted > /var/tmp/greeting" in body
    deleted_without_leftovers(cloud_engine, conn, stack)


def test_an_adopted_server_is_left_in_place_by_the_delete(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    conn = cloud_env.connect()
    name = f"rw-adopt-{uuid.uuid4().hex[:8]}"
    server = conn.compute.create_server(
        name=name,
        image_id=conn.image.find_image(cloud_env.image).id,
        flavor_id=conn.compute.find_flavor(cloud_env.flavor).id,
        networks="none",
    )
    try:
        conn.compute.wait_for_server(server, wait=300)
        # No flavor or image given: an adopted server is only looked up, as in Heat.
        stack = create_complete(cloud_engine, name, ADOPTED, {}, existing=server.id)
        assert cloud_engine.outputs(stack)["name"] == name
        view = cloud_engine.delete(stack)
        assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
        assert conn.compute.get_server(server.id).status == "ACTIVE"
    finally:
        conn.compute.delete_server(server, ignore_missing=True)
        conn.compute.wait_for_delete(server, wait=300)
