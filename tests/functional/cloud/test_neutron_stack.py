"""A realistic network stack on the real Neutron: a network and subnet, a router with its
gateway on the public network and an interface on the subnet, a security group with rules,
a port in that group, and a floating IP on the port; deleting the stack leaves nothing."""

from __future__ import annotations

import uuid

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from tests.functional.cloud.neutron_leftovers import cleaned, leftovers

pytestmark = pytest.mark.functional

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  name: {type: string}
  public: {type: string}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: {get_param: name}}
  subnet:
    type: OS::Neutron::Subnet
    properties:
      name: {get_param: name}
      network: {get_resource: net}
      cidr: 10.89.0.0/24
      dns_nameservers: [198.51.100.53]
  router:
    type: OS::Neutron::Router
    properties:
      name: {get_param: name}
      external_gateway_info: {network: {get_param: public}}
  interface:
    type: OS::Neutron::RouterInterface
    properties: {router: {get_resource: router}, subnet: {get_resource: subnet}}
  web:
    type: OS::Neutron::SecurityGroup
    properties:
      name: {get_param: name}
      rules:
        - {protocol: tcp, port_range_min: 22, port_range_max: 22}
        - {protocol: tcp, port_range_min: 443, port_range_max: 443}
        - {protocol: icmp}
  port:
    type: OS::Neutron::Port
    properties:
      name: {get_param: name}
      network: {get_resource: net}
      fixed_ips: [{subnet: {get_resource: subnet}, ip_address: 10.89.0.10}]
      security_groups: [{get_resource: web}]
  fip:
    type: OS::Neutron::FloatingIP
    depends_on: interface
    properties:
      floating_network: {get_param: public}
      port_id: {get_resource: port}
outputs:
  address: {value: {get_attr: [fip, floating_ip_address]}}
  fixed: {value: {get_attr: [fip, fixed_ip_address]}}
  router: {value: {get_attr: [fip, router_id]}}
  router_id: {value: {get_resource: router}}
"""


def test_a_network_stack_is_created_and_deleted_without_leftovers(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    name = f"neutron-stack-{uuid.uuid4().hex[:8]}"
    with cleaned(cloud_engine, cloud_env, name) as conn:
        before = cloud_engine.requests
        counter = cloud_engine.engine.cloud.pool.counter  # type: ignore[union-attr]
        counted = dict(counter.snapshot())
        stack = cloud_engine.create(name, TEMPLATE, name=name, public=cloud_env.public_network)
        view = cloud_engine.wait(stack)
        assert view.status == "COMPLETE", view.status_reason
        created = cloud_engine.requests - before
        by_kind = {k: n - counted.get(k, 0) for k, n in counter.snapshot().items()}
        print(f"\n7 resources created with {created} cloud requests:", by_kind)
        outputs = cloud_engine.outputs(stack)
        assert outputs["fixed"] == "10.89.0.10"
        assert outputs["router"] == outputs["router_id"]
        assert outputs["address"].startswith("198.51.100.")
        assert len(leftovers(conn, name)) == 5  # net, subnet, router, group, port
        assert created <= 2 * 7

        before = cloud_engine.requests
        view = cloud_engine.delete(stack)
        assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
        print(f"deleted with {cloud_engine.requests - before} cloud requests")
        assert not leftovers(conn, name)
        addresses = {ip.floating_ip_address for ip in conn.network.ips()}
        assert outputs["address"] not in addresses
