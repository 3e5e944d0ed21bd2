"""OS::Neutron::Router and OS::Neutron::RouterInterface on the real Neutron: a router with its
gateway on the public network, updated in place (gateway removed); interfaces on a subnet
and through a port, one replaced by a change of subnet; check, delete, and an unknown
gateway network refused at validation."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from tests.functional.cloud.neutron_leftovers import cleaned, leftovers
from thermik.errors import PropertyError

pytestmark = pytest.mark.functional

GATEWAY = "      external_gateway_info: {network: {get_param: public}}\n"

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  name: {type: string}
  public: {type: string}
  on_b: {type: boolean, default: false}
conditions:
  on_b: {get_param: on_b}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: {get_param: name}}
  a:
    type: OS::Neutron::Subnet
    properties: {name: {get_param: name}, network: {get_resource: net}, cidr: 10.86.0.0/24}
  b:
    type: OS::Neutron::Subnet
    properties: {name: {get_param: name}, network: {get_resource: net}, cidr: 10.86.1.0/24}
  c_net:
    type: OS::Neutron::Net
    properties: {name: {get_param: name}}
  c:
    type: OS::Neutron::Subnet
    properties: {name: {get_param: name}, network: {get_resource: c_net}, cidr: 10.86.2.0/24}
  c_port:
    type: OS::Neutron::Port
    depends_on: c
    properties: {name: {get_param: name}, network: {get_resource: c_net}}
  router:
    type: OS::Neutron::Router
    properties:
      name: {get_param: name}
      external_gateway_info: {network: {get_param: public}}
  on_subnet:
    type: OS::Neutron::RouterInterface
    properties:
      router: {get_resource: router}
      subnet: {if: [on_b, {get_resource: b}, {get_resource: a}]}
  on_port:
    type: OS::Neutron::RouterInterface
    properties: {router: {get_resource: router}, port: {get_resource: c_port}}
outputs:
  router: {value: {get_resource: router}}
  gateway: {value: {get_attr: [router, external_gateway_info]}}
  status: {value: {get_attr: [router, status]}}
  on_subnet: {value: {get_resource: on_subnet}}
  on_port: {value: {get_resource: on_port}}
  subnets: {value: [{get_resource: a}, {get_resource: b}]}
"""


def test_a_router_and_its_interfaces_are_created_updated_checked_and_deleted(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    name = f"neutron-router-{uuid.uuid4().hex[:8]}"
    with cleaned(cloud_engine, cloud_env, name) as conn:
        lifecycle(cloud_engine, cloud_env, conn, name)


def interfaces(conn: Any, router_id: str) -> set[str]:
    """The subnets the router has a port on."""
    return {
        ip["subnet_id"]
        for port in conn.network.ports(device_id=router_id)
        if port.device_owner == "network:router_interface"
        for ip in port.fixed_ips
    }


def lifecycle(cloud_engine: CloudEngine, env: CloudEnv, conn: Any, name: str) -> None:
    public = conn.network.find_network(env.public_network)
    stack = cloud_engine.create(name, TEMPLATE, name=name, public=env.public_network)
    view = cloud_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    outputs = cloud_engine.outputs(stack)
    router_id = outputs["router"]
    a, b = outputs["subnets"]
    assert outputs["gateway"]["network_id"] == public.id
    assert outputs["status"] == "ACTIVE"
    assert outputs["on_subnet"] == f"{router_id}:subnet_id={a}", "Heat's physical id"
    assert outputs["on_port"].startswith(f"{router_id}:port_id=")
    assert a in interfaces(conn, router_id)
    assert len(interfaces(conn, router_id)) == 2

    without_gateway = TEMPLATE.replace(GATEWAY, "")
    cloud_engine.update(stack, without_gateway, on_b=True)
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    assert cloud_engine.outputs(stack)["router"] == router_id, "the router is updated in place"
    assert not conn.network.get_router(router_id).external_gateway_info
    assert b in interfaces(conn, router_id), "a new subnet replaces the interface"
    assert a not in interfaces(conn, router_id)

    assert cloud_engine.check(stack).status == "COMPLETE"
    view = cloud_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert not leftovers(conn, name)


def test_an_unknown_gateway_network_is_refused_at_validation(cloud_engine: CloudEngine) -> None:
    template = """
heat_template_version: 2018-08-31
resources:
  router:
    type: OS::Neutron::Router
    properties: {external_gateway_info: {network: neutron-no-such-net}}
"""
    with pytest.raises(PropertyError) as raised:
        cloud_engine.create(f"neutron-bad-{uuid.uuid4().hex[:8]}", template)
    assert "external_gateway_info" in str(raised.value)
    assert "could not be found" in str(raised.value)
