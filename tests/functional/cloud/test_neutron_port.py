"""OS::Neutron::Port on the real Neutron: create with a security group, update (to a group named
by name) in place in place, a new network replacing the port, check, delete, and an unknown
network refused at validation."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from tests.functional.cloud.neutron_leftovers import cleaned, leftovers
from thermik.errors import PropertyError

pytestmark = pytest.mark.functional

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  name: {type: string}
  on_b: {type: boolean, default: false}
  default_group: {type: boolean, default: false}
  admin: {type: boolean, default: true}
conditions:
  on_b: {get_param: on_b}
  default_group: {get_param: default_group}
resources:
  a:
    type: OS::Neutron::Net
    properties: {name: {list_join: ['-', [{get_param: name}, a]]}}
  b:
    type: OS::Neutron::Net
    properties: {name: {list_join: ['-', [{get_param: name}, b]]}}
  a_subnet:
    type: OS::Neutron::Subnet
    properties: {name: {get_param: name}, network: {get_resource: a}, cidr: 10.84.0.0/24}
  b_subnet:
    type: OS::Neutron::Subnet
    properties: {name: {get_param: name}, network: {get_resource: b}, cidr: 10.85.0.0/24}
  web:
    type: OS::Neutron::SecurityGroup
    properties: {name: {list_join: ['-', [{get_param: name}, web]]}}
  port:
    type: OS::Neutron::Port
    depends_on: [a_subnet, b_subnet, web]
    properties:
      name: {get_param: name}
      network: {if: [on_b, {get_resource: b}, {get_resource: a}]}
      # A group by name (the project's own default) or by id.
      security_groups: {if: [default_group, [default], [{get_resource: web}]]}
      admin_state_up: {get_param: admin}
      tags: [blue]
outputs:
  id: {value: {get_resource: port}}
  ips: {value: {get_attr: [port, fixed_ips]}}
  status: {value: {get_attr: [port, status]}}
  mtu: {value: {get_attr: [port, network, mtu]}}
"""


def test_a_port_is_created_updated_replaced_checked_and_deleted(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    name = f"neutron-port-{uuid.uuid4().hex[:8]}"
    with cleaned(cloud_engine, cloud_env, name) as conn:
        lifecycle(cloud_engine, conn, name)


def lifecycle(cloud_engine: CloudEngine, conn: Any, name: str) -> None:
    stack = cloud_engine.create(name, TEMPLATE, name=name)
    view = cloud_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    outputs = cloud_engine.outputs(stack)
    port = conn.network.get_port(outputs["id"])
    web = conn.network.find_security_group(f"{name}-web")
    assert port.security_group_ids == [web.id]
    assert port.network_id == conn.network.find_network(f"{name}-a").id
    assert outputs["ips"][0]["ip_address"].startswith("10.84.0.")
    assert outputs["status"] == "DOWN"
    assert outputs["mtu"] == conn.network.find_network(f"{name}-a").mtu
    assert "blue" in port.tags
    # Neutron 29 takes tags in a port's POST and drops them: the tag goes in the description.
    assert port.description.startswith("thermik-"), "the creation tag"

    cloud_engine.update(stack, default_group=True, admin=False)
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    updated = conn.network.get_port(port.id)
    assert updated.is_admin_state_up is False
    assert updated.security_group_ids != [web.id]

    cloud_engine.update(stack, on_b=True)
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    replaced = cloud_engine.outputs(stack)
    assert replaced["id"] != port.id, "a new network replaces the port"
    assert replaced["ips"][0]["ip_address"].startswith("10.85.0.")
    assert conn.network.find_port(port.id) is None

    assert cloud_engine.check(stack).status == "COMPLETE"
    view = cloud_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert not leftovers(conn, name)


def test_an_unknown_network_is_refused_at_validation(cloud_engine: CloudEngine) -> None:
    template = """
heat_template_version: 2018-08-31
resources:
  port:
    type: OS::Neutron::Port
    properties: {network: neutron-no-such-net}
"""
    with pytest.raises(PropertyError) as raised:
        cloud_engine.create(f"neutron-bad-{uuid.uuid4().hex[:8]}", template)
    assert "network" in str(raised.value)
    assert "could not be found" in str(raised.value)
