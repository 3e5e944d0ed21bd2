"""OS::Neutron::AddressScope and OS::Neutron::SubnetPool on the real Neutron: a scope, a pool in
it and a subnet allocated from the pool; the pool updated in place (more prefixes, a quota,
tags); the scope and the pool replaced (a new owner), the network and subnet with them; check;
an update Neutron refuses (shrinking the prefixes) failing; delete; upside-down prefix bounds
and an unknown scope refused at validation. Nothing is left behind."""

from __future__ import annotations

import contextlib
import ipaddress
import uuid
from collections.abc import Iterator
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
  prefixes: {type: comma_delimited_list, default: [10.87.0.0/16]}
  owner: {type: string, default: ""}
  quota: {type: number, default: 0}
  tags: {type: comma_delimited_list, default: [t1]}
conditions:
  owned: {not: {equals: [{get_param: owner}, ""]}}
resources:
  scope:
    type: OS::Neutron::AddressScope
    properties:
      name: {get_param: name}
      tenant_id: {if: [owned, {get_param: owner}, null]}
  pool:
    type: OS::Neutron::SubnetPool
    properties:
      name: {get_param: name}
      address_scope: {get_resource: scope}
      prefixes: {get_param: prefixes}
      min_prefixlen: 20
      default_prefixlen: 24
      max_prefixlen: 28
      default_quota: {if: [{equals: [{get_param: quota}, 0]}, null, {get_param: quota}]}
      tenant_id: {if: [owned, {get_param: owner}, null]}
      tags: {get_param: tags}
  net:
    type: OS::Neutron::Net
    properties:
      name: {get_param: name}
      # A network's subnets of one IP version share one scope: a new scope needs a new net.
      tenant_id: {if: [owned, {get_param: owner}, null]}
  subnet:
    type: OS::Neutron::Subnet
    properties:
      name: {get_param: name}
      network: {get_resource: net}
      subnetpool: {get_resource: pool}
outputs:
  scope: {value: {get_resource: scope}}
  pool: {value: {get_resource: pool}}
  subnet: {value: {get_resource: subnet}}
  cidr: {value: {get_attr: [subnet, cidr]}}
"""


def scopes_and_pools(conn: Any, prefix: str) -> list[str]:
    """The demo project's address scopes and subnet pools named ``prefix...``."""
    mine = conn.current_project_id
    return [
        f"{kind}:{item.name}"
        for kind in ("subnet_pools", "address_scopes")
        for item in getattr(conn.network, kind)(project_id=mine)
        if (item.name or "").startswith(prefix)
    ]


@contextlib.contextmanager
def no_scopes_left(env: CloudEnv, prefix: str) -> Iterator[None]:
    """Whatever fails inside, no pool or scope named ``prefix...`` stays (pools first; the
    subnets allocated from them must be gone already)."""
    try:
        yield
    finally:
        conn = env.connect()
        for kind in ("subnet_pool", "address_scope"):
            for item in list(getattr(conn.network, f"{kind}s")()):
                if (item.name or "").startswith(prefix):
                    getattr(conn.network, f"delete_{kind}")(item, ignore_missing=True)


def test_a_scope_and_a_pool_are_created_updated_replaced_checked_and_deleted(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    name = f"neutron-pool-{uuid.uuid4().hex[:8]}"
    with no_scopes_left(cloud_env, name), cleaned(cloud_engine, cloud_env, name) as conn:
        lifecycle(cloud_engine, conn, name)
        assert not scopes_and_pools(conn, name)


def lifecycle(cloud_engine: CloudEngine, conn: Any, name: str) -> None:
    stack = cloud_engine.create(name, TEMPLATE, name=name)
    view = cloud_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    outputs = cloud_engine.outputs(stack)
    scope = conn.network.get_address_scope(outputs["scope"])
    pool = conn.network.get_subnet_pool(outputs["pool"])
    assert (scope.name, scope.ip_version) == (name, 4)
    assert pool.address_scope_id == scope.id
    assert pool.prefixes == ["10.87.0.0/16"]
    bounds = (pool.minimum_prefix_length, pool.default_prefix_length, pool.maximum_prefix_length)
    assert bounds == (20, 24, 28)
    assert pool.tags == ["t1"]
    assert pool.description.startswith("thermik-"), "the creation tag"
    cidr = ipaddress.ip_network(outputs["cidr"])
    assert cidr.prefixlen == 24
    assert cidr.subnet_of(ipaddress.ip_network("10.87.0.0/16"))

    cloud_engine.update(stack, prefixes="10.87.0.0/16,10.88.0.0/16", quota=1024, tags="t2")
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    assert cloud_engine.outputs(stack)["pool"] == pool.id, "the pool is updated in place"
    updated = conn.network.get_subnet_pool(pool.id)
    assert sorted(updated.prefixes) == ["10.87.0.0/16", "10.88.0.0/16"]
    assert (updated.default_quota, updated.tags) == (1024, ["t2"])

    owner = conn.current_project_id
    cloud_engine.update(stack, prefixes="10.89.0.0/16", quota=1024, tags="t2", owner=owner)
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    replaced = cloud_engine.outputs(stack)
    assert replaced["scope"] != scope.id, "a new owner replaces the scope"
    assert replaced["pool"] != pool.id, "and the pool"
    assert replaced["subnet"] != outputs["subnet"], "and the subnet allocated from it"
    assert ipaddress.ip_network(replaced["cidr"]).subnet_of(ipaddress.ip_network("10.89.0.0/16"))
    assert conn.network.get_subnet_pool(replaced["pool"]).address_scope_id == replaced["scope"]
    assert conn.network.find_subnet_pool(pool.id) is None, "the old pool is deleted"
    assert conn.network.find_address_scope(scope.id) is None, "the old scope is deleted"

    assert cloud_engine.check(stack).status == "COMPLETE"

    cloud_engine.update(stack, prefixes="10.89.0.0/24", quota=1024, tags="t2", owner=owner)
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "FAILED"), "Neutron refuses to shrink"
    assert "pool" in view.status_reason
    assert conn.network.get_subnet_pool(replaced["pool"]).prefixes == ["10.89.0.0/16"]

    view = cloud_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert not leftovers(conn, name)


def test_prefix_bounds_upside_down_are_refused_at_validation(cloud_engine: CloudEngine) -> None:
    template = """
heat_template_version: 2018-08-31
resources:
  pool:
    type: OS::Neutron::SubnetPool
    properties: {prefixes: [10.90.0.0/16], min_prefixlen: 28, max_prefixlen: 24}
"""
    with pytest.raises(PropertyError) as raised:
        cloud_engine.create(f"neutron-bad-{uuid.uuid4().hex[:8]}", template)
    assert "min_prefixlen" in str(raised.value)


def test_an_unknown_address_scope_is_refused_at_validation(cloud_engine: CloudEngine) -> None:
    template = """
heat_template_version: 2018-08-31
resources:
  pool:
    type: OS::Neutron::SubnetPool
    properties: {prefixes: [10.90.0.0/16], address_scope: neutron-no-such-scope}
"""
    with pytest.raises(PropertyError) as raised:
        cloud_engine.create(f"neutron-bad-{uuid.uuid4().hex[:8]}", template)
    assert "address_scope" in str(raised.value)
    assert "could not be found" in str(raised.value)
