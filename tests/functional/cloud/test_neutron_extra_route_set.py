"""OS::Neutron::ExtraRouteSet on the real Neutron (extraroute-atomic): two sets on one router
that keep each other's routes; one changed in place; check; a next hop off the router's
subnets failing the update with Neutron's answer; delete; an unknown router refused at
validation. Nothing is left behind."""

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
  hop: {type: string, default: 10.91.0.10}
  destination: {type: string, default: 192.168.50.0/24}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: {get_param: name}}
  subnet:
    type: OS::Neutron::Subnet
    properties: {name: {get_param: name}, network: {get_resource: net}, cidr: 10.91.0.0/24}
  router:
    type: OS::Neutron::Router
    properties: {name: {get_param: name}}
  iface:
    type: OS::Neutron::RouterInterface
    properties: {router: {get_resource: router}, subnet: {get_resource: subnet}}
  one:
    type: OS::Neutron::ExtraRouteSet
    depends_on: iface
    properties:
      router: {get_resource: router}
      routes: [{destination: {get_param: destination}, nexthop: {get_param: hop}}]
  two:
    type: OS::Neutron::ExtraRouteSet
    depends_on: iface
    properties:
      router: {get_resource: router}
      routes: [{destination: 192.168.60.0/24, nexthop: 10.91.0.11}]
outputs:
  router: {value: {get_resource: router}}
  one: {value: {get_resource: one}}
"""


def routes(conn: Any, router_id: str) -> set[tuple[str, str]]:
    return {(r["destination"], r["nexthop"]) for r in conn.network.get_router(router_id).routes}


def test_route_sets_are_added_changed_checked_and_removed(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    name = f"neutron-routes-{uuid.uuid4().hex[:8]}"
    with cleaned(cloud_engine, cloud_env, name) as conn:
        lifecycle(cloud_engine, conn, name)


def lifecycle(cloud_engine: CloudEngine, conn: Any, name: str) -> None:
    stack = cloud_engine.create(name, TEMPLATE, name=name)
    view = cloud_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    outputs = cloud_engine.outputs(stack)
    router_id = outputs["router"]
    assert outputs["one"] == router_id, "Heat's physical id: the router's"
    two = ("192.168.60.0/24", "10.91.0.11")
    assert routes(conn, router_id) == {("192.168.50.0/24", "10.91.0.10"), two}

    cloud_engine.update(stack, hop="10.91.0.12", destination="192.168.70.0/24")
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    assert routes(conn, router_id) == {("192.168.70.0/24", "10.91.0.12"), two}

    assert cloud_engine.check(stack).status == "COMPLETE"

    cloud_engine.update(stack, hop="10.99.0.1", destination="192.168.70.0/24")
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "FAILED"), "the next hop is off-router"
    assert "one" in view.status_reason
    assert two in routes(conn, router_id), "the other set's route stays"

    view = cloud_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert not leftovers(conn, name)


def test_an_unknown_router_is_refused_at_validation(cloud_engine: CloudEngine) -> None:
    template = """
heat_template_version: 2018-08-31
resources:
  routes:
    type: OS::Neutron::ExtraRouteSet
    properties:
      router: 00000000-0000-0000-0000-000000000000
      routes: [{destination: 192.168.0.0/24, nexthop: 10.0.0.1}]
"""
    with pytest.raises(PropertyError) as raised:
        cloud_engine.create(f"neutron-bad-{uuid.uuid4().hex[:8]}", template)
    assert "properties.router" in str(raised.value)
    assert "could not be found" in str(raised.value)
