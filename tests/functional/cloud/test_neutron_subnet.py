"""OS::Neutron::Subnet on the real Neutron: create on a stack's network, update in place, a new
CIDR replacing the subnet, check, delete, and an unknown network refused at validation."""

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
  cidr: {type: string}
  dns: {type: comma_delimited_list, default: []}
  gateway: {type: string, default: auto}
  pools: {type: json, default: [{start: 10.81.0.10, end: 10.81.0.20}]}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: {get_param: name}}
  subnet:
    type: OS::Neutron::Subnet
    properties:
      name: {get_param: name}
      network: {get_resource: net}
      cidr: {get_param: cidr}
      dns_nameservers: {get_param: dns}
      gateway_ip: {get_param: gateway}
      allocation_pools: {get_param: pools}
      tags: [t1]
outputs:
  id: {value: {get_resource: subnet}}
  cidr: {value: {get_attr: [subnet, cidr]}}
  gateway: {value: {get_attr: [subnet, gateway_ip]}}
  network_id: {value: {get_attr: [subnet, network_id]}}
"""


def test_a_subnet_is_created_updated_replaced_checked_and_deleted(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    name = f"neutron-subnet-{uuid.uuid4().hex[:8]}"
    with cleaned(cloud_engine, cloud_env, name) as conn:
        lifecycle(cloud_engine, conn, name)


def lifecycle(cloud_engine: CloudEngine, conn: Any, name: str) -> None:
    before = cloud_engine.requests
    stack = cloud_engine.create(name, TEMPLATE, name=name, cidr="10.81.0.0/24")
    view = cloud_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    print(f"\nnet + subnet create: {cloud_engine.requests - before} cloud requests")
    outputs = cloud_engine.outputs(stack)
    subnet = conn.network.get_subnet(outputs["id"])
    assert (subnet.cidr, outputs["cidr"]) == ("10.81.0.0/24", "10.81.0.0/24")
    assert outputs["gateway"] == "10.81.0.1"
    assert outputs["network_id"] == subnet.network_id
    assert subnet.allocation_pools == [{"start": "10.81.0.10", "end": "10.81.0.20"}]
    assert "t1" in subnet.tags
    assert subnet.description.startswith("thermik-"), "the creation tag"

    cloud_engine.update(stack, dns="10.0.0.53", gateway="")
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    updated = conn.network.get_subnet(outputs["id"])
    assert updated.dns_nameservers == ["10.0.0.53"]
    assert updated.gateway_ip is None

    cloud_engine.update(stack, cidr="10.81.1.0/24", pools=[])
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    replaced = cloud_engine.outputs(stack)["id"]
    assert replaced != subnet.id, "a new CIDR replaces the subnet"
    assert conn.network.get_subnet(replaced).cidr == "10.81.1.0/24"
    assert conn.network.find_subnet(subnet.id) is None, "the old subnet is deleted"

    assert cloud_engine.check(stack).status == "COMPLETE"
    view = cloud_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert not leftovers(conn, name)


def test_an_unknown_network_is_refused_at_validation(cloud_engine: CloudEngine) -> None:
    template = """
heat_template_version: 2018-08-31
resources:
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: neutron-no-such-net, cidr: 10.82.0.0/24}
"""
    with pytest.raises(PropertyError) as raised:
        cloud_engine.create(f"neutron-bad-{uuid.uuid4().hex[:8]}", template)
    assert "network" in str(raised.value)
    assert "neutron-no-such-net" in str(raised.value)
    assert "could not be found" in str(raised.value)
