"""OS::Neutron::Net on the real Neutron: create with its creation tag, update in place, check,
a network deleted out of band (check reports it, update recreates it), and delete."""

from __future__ import annotations

import uuid

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from thermik.errors import PropertyError

pytestmark = pytest.mark.functional

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  name: {type: string}
  tags: {type: comma_delimited_list, default: []}
resources:
  net:
    type: OS::Neutron::Net
    properties:
      name: {get_param: name}
      tags: {get_param: tags}
outputs:
  id: {value: {get_resource: net}}
  status: {value: {get_attr: [net, status]}}
  mtu: {value: {get_attr: [net, mtu]}}
"""


def test_a_network_is_created_tagged_updated_checked_and_deleted(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    conn = cloud_env.connect()
    name = f"net-{uuid.uuid4().hex[:8]}"
    stack = cloud_engine.create(name, TEMPLATE, name=name, tags="blue")
    view = cloud_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    outputs = cloud_engine.outputs(stack)
    network = conn.network.get_network(outputs["id"])
    assert network.name == name
    assert outputs["status"] == "ACTIVE"
    assert outputs["mtu"] == network.mtu
    assert "blue" in network.tags
    assert network.description.startswith("thermik-"), "the creation tag"

    cloud_engine.update(stack, name=f"{name}-2", tags="red")
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    network = conn.network.get_network(outputs["id"])
    assert network.name == f"{name}-2"
    assert "red" in network.tags
    assert "blue" not in network.tags

    assert cloud_engine.check(stack).status == "COMPLETE"
    conn.network.delete_network(network.id)
    view = cloud_engine.check(stack)
    assert (view.action, view.status) == ("CHECK", "FAILED")
    assert "could not be found" in view.status_reason or "NotFound" in view.status_reason

    # The update replaces what the check found missing.
    cloud_engine.update(stack, name=f"{name}-3", tags="red")
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    replacement = cloud_engine.outputs(stack)["id"]
    assert replacement != network.id
    assert conn.network.get_network(replacement).name == f"{name}-3"

    view = cloud_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert not list(conn.network.networks(name=f"{name}-3"))


def test_an_unknown_qos_policy_is_refused_at_validation(cloud_engine: CloudEngine) -> None:
    template = """
heat_template_version: 2018-08-31
resources:
  net:
    type: OS::Neutron::Net
    properties: {qos_policy: no-such-policy}
"""
    with pytest.raises(PropertyError) as raised:
        cloud_engine.create(f"bad-{uuid.uuid4().hex[:8]}", template)
    assert "qos_policy" in str(raised.value)
