"""OS::Neutron::ProviderNet on the real Neutron, as the cloud's admin: a VLAN network on
physnet1; renamed, moved to another VLAN and made external in place (every property of Heat's
type changes in place, so there is no replacement); check; a VLAN id Neutron refuses failing
the update; delete; a VLAN network without a physical network refused at validation. Nothing
is left behind."""

from __future__ import annotations

import random
import uuid
from typing import Any

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from thermik.errors import PropertyError

pytestmark = pytest.mark.functional

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  name: {type: string}
  vlan: {type: string}
  external: {type: boolean, default: false}
resources:
  net:
    type: OS::Neutron::ProviderNet
    properties:
      name: {get_param: name}
      network_type: vlan
      physical_network: physnet1
      segmentation_id: {get_param: vlan}
      router_external: {get_param: external}
      shared: false
outputs:
  id: {value: {get_resource: net}}
  status: {value: {get_attr: [net, status]}}
"""


def named(admin: Any, prefix: str) -> list[str]:
    return [n.id for n in admin.network.networks() if (n.name or "").startswith(prefix)]


def test_a_provider_network_is_created_updated_checked_and_deleted(
    admin_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    admin = cloud_env.connect(admin=True)
    name = f"provider-{uuid.uuid4().hex[:8]}"
    first, second = random.sample(range(150, 200), 2)
    try:
        lifecycle(admin_engine, admin, name, first, second)
    finally:
        for net_id in named(admin, name):
            admin.network.delete_network(net_id, ignore_missing=True)
    assert not named(admin, name)


def lifecycle(engine: CloudEngine, admin: Any, name: str, first: int, second: int) -> None:
    stack = engine.create(name, TEMPLATE, name=name, vlan=str(first))
    view = engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    outputs = engine.outputs(stack)
    net = admin.network.get_network(outputs["id"])
    assert (net.provider_network_type, net.provider_physical_network) == ("vlan", "physnet1")
    assert net.provider_segmentation_id == first
    assert (net.is_router_external, net.is_shared) == (False, False)
    assert net.description.startswith("thermik-"), "the creation tag"
    assert outputs["status"] == "ACTIVE"

    engine.update(stack, name=f"{name}-b", vlan=str(second), external=True)
    view = engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    assert engine.outputs(stack)["id"] == net.id, "updated in place"
    updated = admin.network.get_network(net.id)
    assert (updated.name, updated.provider_segmentation_id) == (f"{name}-b", second)
    assert updated.is_router_external

    assert engine.check(stack).status == "COMPLETE"

    engine.update(stack, name=f"{name}-b", vlan="5000", external=True)
    view = engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "FAILED"), "VLAN ids end at 4094"
    assert "net" in view.status_reason
    assert admin.network.get_network(net.id).provider_segmentation_id == second

    view = engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert admin.network.find_network(net.id) is None


def test_a_vlan_without_a_physical_network_is_refused(admin_engine: CloudEngine) -> None:
    template = """
heat_template_version: 2018-08-31
resources:
  net: {type: OS::Neutron::ProviderNet, properties: {network_type: vlan}}
"""
    with pytest.raises(PropertyError) as raised:
        admin_engine.create(f"provider-{uuid.uuid4().hex[:8]}", template)
    assert "physical_network is required for vlan provider network" in str(raised.value)
