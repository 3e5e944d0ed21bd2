"""OS::Neutron::FloatingIP and OS::Neutron::FloatingIPAssociation on the real Neutron: a
floating IP of the public network (named by name) on a port, moved to another port in place;
a second one associated by an association, moved the same way; check, delete (nothing left),
and an unknown floating network refused at validation."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from tests.functional.cloud.neutron_leftovers import cleaned, leftovers
from thermik.errors import PropertyError

pytestmark = pytest.mark.functional

PORT = """
  {name}:
    type: OS::Neutron::Port
    depends_on: subnet
    properties:
      name: {{get_param: name}}
      network: {{get_resource: net}}
"""
TEMPLATE = (
    """
heat_template_version: 2018-08-31
parameters:
  name: {type: string}
  public: {type: string}
  moved: {type: boolean, default: false}
conditions:
  moved: {get_param: moved}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: {get_param: name}}
  subnet:
    type: OS::Neutron::Subnet
    properties: {name: {get_param: name}, network: {get_resource: net}, cidr: 10.87.0.0/24}
  router:
    type: OS::Neutron::Router
    properties:
      name: {get_param: name}
      external_gateway_info: {network: {get_param: public}}
  interface:
    type: OS::Neutron::RouterInterface
    properties: {router: {get_resource: router}, subnet: {get_resource: subnet}}
"""
    + "".join(PORT.format(name=name) for name in ("a", "b", "c", "d"))
    + """
  fip:
    type: OS::Neutron::FloatingIP
    depends_on: interface
    properties:
      floating_network: {get_param: public}
      port_id: {if: [moved, {get_resource: b}, {get_resource: a}]}
  spare:
    type: OS::Neutron::FloatingIP
    properties: {floating_network: {get_param: public}}
  association:
    type: OS::Neutron::FloatingIPAssociation
    depends_on: interface
    properties:
      floatingip_id: {get_resource: spare}
      port_id: {if: [moved, {get_resource: d}, {get_resource: c}]}
outputs:
  fip: {value: {get_resource: fip}}
  spare: {value: {get_resource: spare}}
  address: {value: {get_attr: [fip, floating_ip_address]}}
  port: {value: {get_attr: [fip, port_id]}}
  router: {value: {get_attr: [fip, router_id]}}
  network: {value: {get_attr: [fip, floating_network_id]}}
  association: {value: {get_resource: association}}
  ports: {value: [{get_resource: a}, {get_resource: b}, {get_resource: c}, {get_resource: d}]}
"""
)


def test_floating_ips_are_associated_moved_checked_and_deleted(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    name = f"neutron-fip-{uuid.uuid4().hex[:8]}"
    with cleaned(cloud_engine, cloud_env, name) as conn:
        lifecycle(cloud_engine, cloud_env, conn, name)


def lifecycle(cloud_engine: CloudEngine, env: CloudEnv, conn: Any, name: str) -> None:
    before = cloud_engine.requests
    stack = cloud_engine.create(name, TEMPLATE, name=name, public=env.public_network)
    view = cloud_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    print(f"\n12 resources created with {cloud_engine.requests - before} cloud requests")
    outputs = cloud_engine.outputs(stack)
    a, b, c, d = outputs["ports"]
    fip = conn.network.get_ip(outputs["fip"])
    assert (fip.port_id, outputs["port"]) == (a, a)
    assert outputs["address"] == fip.floating_ip_address
    assert outputs["router"] == fip.router_id
    assert outputs["network"] == conn.network.find_network(env.public_network).id
    assert fip.description.startswith("thermik-"), "the creation tag"
    assert conn.network.get_ip(outputs["spare"]).port_id == c
    assert outputs["association"] == f"{outputs['spare']}:{c}"

    cloud_engine.update(stack, moved=True)
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    moved = cloud_engine.outputs(stack)
    assert moved["fip"] == fip.id, "the floating IP moves in place"
    assert conn.network.get_ip(fip.id).port_id == b
    assert conn.network.get_ip(outputs["spare"]).port_id == d

    assert cloud_engine.check(stack).status == "COMPLETE"
    view = cloud_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert conn.network.find_ip(fip.id) is None
    assert conn.network.find_ip(outputs["spare"]) is None
    assert not leftovers(conn, name)


def test_an_unknown_floating_network_is_refused_at_validation(cloud_engine: CloudEngine) -> None:
    template = """
heat_template_version: 2018-08-31
resources:
  fip:
    type: OS::Neutron::FloatingIP
    properties: {floating_network: neutron-no-such-net}
"""
    with pytest.raises(PropertyError) as raised:
        cloud_engine.create(f"neutron-bad-{uuid.uuid4().hex[:8]}", template)
    assert "floating_network" in str(raised.value)
    assert "could not be found" in str(raised.value)
