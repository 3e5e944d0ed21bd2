"""A template that states no ``depends_on`` at all, on the real Neutron and Nova: the port,
the server and the floating IP wait for what Heat's types make them wait for (the subnets of
their network, the router interface that reaches the port), so the stack is created, and it is
deleted in the reverse order (the floating IP before the interface Neutron would otherwise
refuse to remove), leaving nothing."""

from __future__ import annotations

import ipaddress
import uuid

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from tests.functional.cloud.neutron_leftovers import cleaned, leftovers

pytestmark = pytest.mark.functional

CIDR = "10.87.0.0/24"
TEMPLATE = f"""
heat_template_version: 2018-08-31
parameters:
  name: {{type: string}}
  public: {{type: string}}
  image: {{type: string}}
  flavor: {{type: string}}
resources:
  net:
    type: OS::Neutron::Net
    properties: {{name: {{get_param: name}}}}
  subnet:
    type: OS::Neutron::Subnet
    properties: {{name: {{get_param: name}}, network: {{get_resource: net}}, cidr: {CIDR}}}
  router:
    type: OS::Neutron::Router
    properties:
      name: {{get_param: name}}
      external_gateway_info: {{network: {{get_param: public}}}}
  interface:
    type: OS::Neutron::RouterInterface
    properties: {{router: {{get_resource: router}}, subnet: {{get_resource: subnet}}}}
  port:
    type: OS::Neutron::Port
    properties: {{name: {{get_param: name}}, network: {{get_resource: net}}}}
  fip:
    type: OS::Neutron::FloatingIP
    properties:
      floating_network: {{get_param: public}}
      port_id: {{get_resource: port}}
  server:
    type: OS::Nova::Server
    properties:
      name: {{get_param: name}}
      image: {{get_param: image}}
      flavor: {{get_param: flavor}}
      networks: [{{network: {{get_resource: net}}}}]
outputs:
  port_ips: {{value: {{get_attr: [port, fixed_ips]}}}}
  floating: {{value: {{get_attr: [fip, floating_ip_address]}}}}
  server_ip: {{value: {{get_attr: [server, first_address]}}}}
"""


def test_a_template_without_depends_on_is_created_and_deleted_cleanly(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    name = f"implied-{uuid.uuid4().hex[:8]}"
    with cleaned(cloud_engine, cloud_env, name) as conn:
        stack = cloud_engine.create(
            name,
            TEMPLATE,
            name=name,
            public=cloud_env.public_network,
            image=cloud_env.image,
            flavor=cloud_env.flavor,
        )
        view = cloud_engine.wait(stack)
        assert view.status == "COMPLETE", view.status_reason
        outputs = cloud_engine.outputs(stack)
        subnet = ipaddress.ip_network(CIDR)
        # Made before its network had a subnet, the port would have no address at all.
        addresses = [ipaddress.ip_address(ip["ip_address"]) for ip in outputs["port_ips"]]
        assert addresses
        assert all(address in subnet for address in addresses)
        assert ipaddress.ip_address(outputs["server_ip"]) in subnet
        assert outputs["floating"]
        # As Heat shows them: the inferred dependencies are the resources' own.
        assert set(cloud_engine.resource(stack, "interface").required_by) == {"fip"}
        assert set(cloud_engine.resource(stack, "subnet").required_by) == {
            "interface",
            "port",
            "server",
        }
        assert set(cloud_engine.resource(stack, "router").required_by) == {"interface", "fip"}

        view = cloud_engine.delete(stack)
        assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
        assert not leftovers(conn, name)
        assert outputs["floating"] not in {ip.floating_ip_address for ip in conn.network.ips()}
