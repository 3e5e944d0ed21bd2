"""OS::Neutron::Trunk on the real Neutron (the trunk service plugin with ML2's openvswitch trunk
driver, no agents: the trunk stays DOWN, which is ready), as the demo user: a trunk on a
parent port with one sub-port; updated in place (renamed, described, a sub-port added, one's
VLAN changed, then every sub-port removed); check; delete. Nothing is left behind."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
import yaml

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from tests.functional.cloud.neutron_leftovers import cleaned, leftovers

pytestmark = pytest.mark.functional

TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "parameters": {
        "name": {"type": "string"},
        "trunk_name": {"type": "string"},
        "description": {"type": "string", "default": ""},
    },
    "resources": {
        **{
            f"{n}_net": {"type": "OS::Neutron::Net", "properties": {"name": {"get_param": "name"}}}
            for n in ("parent", "one", "two")
        },
        **{
            f"{n}_port": {
                "type": "OS::Neutron::Port",
                "properties": {
                    "name": {"get_param": "name"},
                    "network": {"get_resource": f"{n}_net"},
                },
            }
            for n in ("parent", "one", "two")
        },
        "trunk": {
            "type": "OS::Neutron::Trunk",
            "properties": {
                "name": {"get_param": "trunk_name"},
                "description": {"get_param": "description"},
                "port": {"get_resource": "parent_port"},
                "sub_ports": [],
            },
        },
    },
    "outputs": {
        "trunk": {"value": {"get_resource": "trunk"}},
        "port_id": {"value": {"get_attr": ["trunk", "port_id"]}},
        **{
            f"{n}_port": {"value": {"get_resource": f"{n}_port"}} for n in ("parent", "one", "two")
        },
    },
}


def with_sub_ports(*sub_ports: tuple[str, int]) -> str:
    """The template with the trunk's sub-ports: (port resource, VLAN) each."""
    template = dict(TEMPLATE, resources=dict(TEMPLATE["resources"]))
    trunk = template["resources"]["trunk"]
    template["resources"]["trunk"] = {
        **trunk,
        "properties": {
            **trunk["properties"],
            "sub_ports": [
                {
                    "port": {"get_resource": port},
                    "segmentation_type": "vlan",
                    "segmentation_id": vlan,
                }
                for port, vlan in sub_ports
            ],
        },
    }
    return yaml.safe_dump(template)


def trunks(conn: Any, prefix: str) -> list[str]:
    return [t.id for t in conn.network.trunks() if (t.name or "").startswith(prefix)]


def test_a_trunk_is_created_updated_checked_and_deleted(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    name = f"neutron-trunk-{uuid.uuid4().hex[:8]}"
    try:
        with cleaned(cloud_engine, cloud_env, name) as conn:
            lifecycle(cloud_engine, conn, name)
            assert not leftovers(conn, name)
    finally:
        conn = cloud_env.connect()
        left = trunks(conn, name)
        for trunk in left:
            conn.network.delete_trunk(trunk, ignore_missing=True)
    assert not left


def sub_ports(conn: Any, trunk: str) -> set[tuple[str, str, int]]:
    return {
        (s["port_id"], s["segmentation_type"], s["segmentation_id"])
        for s in conn.network.get_trunk(trunk).sub_ports
    }


def lifecycle(engine: CloudEngine, conn: Any, name: str) -> None:
    stack = engine.create(name, with_sub_ports(("one_port", 101)), name=name, trunk_name=name)
    view = engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    out = engine.outputs(stack)
    trunk = conn.network.get_trunk(out["trunk"])
    assert (trunk.name, trunk.port_id, trunk.status) == (name, out["parent_port"], "DOWN")
    assert out["port_id"] == out["parent_port"]
    assert sub_ports(conn, trunk.id) == {(out["one_port"], "vlan", 101)}

    template = with_sub_ports(("one_port", 102), ("two_port", 201))
    engine.update(stack, template, name=name, trunk_name=f"{name}-x", description="two VLANs")
    view = engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    assert engine.outputs(stack)["trunk"] == trunk.id, "the trunk is updated in place"
    updated = conn.network.get_trunk(trunk.id)
    assert (updated.name, updated.description) == (f"{name}-x", "two VLANs")
    assert sub_ports(conn, trunk.id) == {
        (out["one_port"], "vlan", 102),
        (out["two_port"], "vlan", 201),
    }

    assert engine.check(stack).status == "COMPLETE"

    engine.update(stack, with_sub_ports(), name=name, trunk_name=name)
    view = engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    assert sub_ports(conn, trunk.id) == set()

    view = engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert conn.network.find_trunk(trunk.id) is None
