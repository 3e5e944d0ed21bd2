"""A create run again after an engine crash (between the cloud call and the database write)
finds what its first run made on the real Neutron instead of making another, and a delete
of what is gone already is done: each type's create is driven twice with the same resource
data, as the next engine would drive it."""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from tests.functional.cloud.neutron_leftovers import cleaned, leftovers
from tests.unit.resources.harness import Context
from thermik.clients.access import StackCloud
from thermik.resources.neutron.floating_ip import FloatingIP
from thermik.resources.neutron.floating_ip_association import FloatingIPAssociation
from thermik.resources.neutron.port import Port
from thermik.resources.neutron.router import Router
from thermik.resources.neutron.router_interface import RouterInterface
from thermik.resources.neutron.security_group import SecurityGroup
from thermik.resources.neutron.security_group_rule import SecurityGroupRule
from thermik.resources.neutron.subnet import Subnet
from thermik.resources.plugin import ResourcePlugin

pytestmark = pytest.mark.functional


@dataclasses.dataclass
class CloudContext(Context):
    """The harness's context, with the cloud access a traversal gives a plugin."""

    cloud: Any = None


def created_twice(
    plugin: type[ResourcePlugin], props: dict[str, Any], cloud: StackCloud, version: int
) -> tuple[str, CloudContext]:
    """Create with ``props``, then again with the same data and no physical id (the engine
    died before recording it); both runs must give the same physical resource."""
    schema_props = plugin.check_properties(props)
    first = CloudContext(resource_type="OS::Neutron::X", version_id=version, cloud=cloud)
    plugin().create(first, schema_props)
    again = CloudContext(
        resource_type="OS::Neutron::X", version_id=version, cloud=cloud, data=first.data
    )
    plugin().create(again, schema_props)
    assert first.physical_id is not None
    assert again.physical_id == first.physical_id, f"{plugin.__name__} made a second one"
    return first.physical_id, again


def deleted_twice(plugin: type[ResourcePlugin], ctx: CloudContext, props: dict[str, Any]) -> None:
    schema_props = plugin.check_properties(props)
    for _ in range(2):
        progress = plugin().delete(ctx, schema_props)
        while (
            progress is not None
            and plugin().check_delete_complete(ctx, schema_props, progress) is not True
        ):
            pass


def test_creates_run_again_find_what_the_first_run_made(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    name = f"neutron-resumed-{uuid.uuid4().hex[:8]}"
    assert cloud_engine.engine.cloud is not None
    accesses = cloud_engine.engine.cloud
    cloud = StackCloud(accesses.pool, lambda: accesses.source.of_stack(None))
    with cleaned(cloud_engine, cloud_env, name) as conn:
        net = conn.network.create_network(name=name)
        made: list[tuple[type[ResourcePlugin], CloudContext, dict[str, Any]]] = []

        def twice(plugin: type[ResourcePlugin], props: dict[str, Any]) -> str:
            physical_id, ctx = created_twice(plugin, props, cloud, version=len(made) + 1)
            made.append((plugin, ctx, props))
            return physical_id

        subnet = twice(Subnet, {"name": name, "network": net.id, "cidr": "10.90.0.0/24"})
        router = twice(
            Router,
            {"name": name, "external_gateway_info": {"network": cloud_env.public_network}},
        )
        twice(RouterInterface, {"router": router, "subnet": subnet})
        port = twice(Port, {"name": name, "network": net.id})
        fip = twice(FloatingIP, {"floating_network": cloud_env.public_network})
        twice(FloatingIPAssociation, {"floatingip_id": fip, "port_id": port})
        ssh = {"protocol": "tcp", "port_range_min": 22, "port_range_max": 22}
        group = twice(SecurityGroup, {"name": name, "rules": [ssh]})
        twice(
            SecurityGroupRule,
            {"security_group": group, "port_range_min": 80, "port_range_max": 80},
        )

        assert len(list(conn.network.subnets(name=name))) == 1
        assert len(list(conn.network.routers(name=name))) == 1
        assert len(list(conn.network.ports(name=name))) == 1
        assert (
            len(
                [
                    p
                    for p in conn.network.ports(device_id=router)
                    if p.device_owner == "network:router_interface"
                ]
            )
            == 1
        )
        assert len(list(conn.network.security_groups(name=name))) == 1
        assert len(list(conn.network.security_group_rules(security_group_id=group))) == 4
        assert conn.network.get_ip(fip).port_id == port

        for plugin, ctx, props in reversed(made):
            deleted_twice(plugin, ctx, props)
        conn.network.delete_network(net)
        assert not leftovers(conn, name)
        assert conn.network.find_ip(fip) is None
