"""``external_id`` on the real Neutron: a stack adopts a network it did not make, reads its
attributes, leaves it alone on update and delete, and fails when the network is not there."""

from __future__ import annotations

import uuid

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine

pytestmark = pytest.mark.functional

TEMPLATE = """
heat_template_version: 2016-10-14
parameters:
  net_id: {type: string}
resources:
  net:
    type: OS::Neutron::Net
    external_id: {get_param: net_id}
outputs:
  id: {value: {get_resource: net}}
  name: {value: {get_attr: [net, name]}}
"""


def test_an_external_network_is_adopted_and_left_by_the_delete(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    conn = cloud_env.connect()
    name = f"ext-{uuid.uuid4().hex[:8]}"
    network = conn.network.create_network(name=name)
    try:
        stack = cloud_engine.create(name, TEMPLATE, net_id=network.id)
        view = cloud_engine.wait(stack)
        assert (view.action, view.status) == ("CREATE", "COMPLETE"), view.status_reason
        assert cloud_engine.outputs(stack) == {"id": network.id, "name": name}
        assert cloud_engine.resource(stack, "net").action == "ADOPT"
        cloud_engine.update(stack, TEMPLATE, net_id=network.id)
        view = cloud_engine.wait(stack)
        assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
        view = cloud_engine.delete(stack)
        assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
        assert conn.network.get_network(network.id).name == name
    finally:
        conn.network.delete_network(network.id, ignore_missing=True)


def test_an_external_id_naming_nothing_fails_the_create(cloud_engine: CloudEngine) -> None:
    stack = cloud_engine.create(f"ext-{uuid.uuid4().hex[:8]}", TEMPLATE, net_id=str(uuid.uuid4()))
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("CREATE", "FAILED")
    assert "resources.net: Network" in view.status_reason
    assert "could not be found" in view.status_reason
    view = cloud_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
