"""The unmodified python-heatclient against the API on a live loopback socket."""

from __future__ import annotations

from typing import Any

import pytest
from heatclient import client as heat_client
from heatclient import exc as heat_exc

from tests.unit.api.conftest import TEMPLATE, TENANT
from tests.unit.api.memory_service import MemoryService


@pytest.fixture
def heat(live_api: str) -> Any:
    return heat_client.Client("1", endpoint=f"{live_api}/v1/{TENANT}", token="tok")


@pytest.fixture
def stack_id(heat: Any) -> str:
    created = heat.stacks.create(
        stack_name="s1", template=TEMPLATE, parameters={"flavor": "big"}, tags="a,b"
    )
    return str(created["stack"]["id"])


def test_create_get_list(heat: Any, service: MemoryService, stack_id: str) -> None:
    assert list(service.stacks) == [stack_id]
    (listed,) = heat.stacks.list()
    assert (listed.id, listed.stack_name, listed.tags) == (stack_id, "s1", ["a", "b"])
    by_name = heat.stacks.get("s1")
    assert (by_name.id, by_name.action, by_name.status) == (stack_id, "CREATE", "COMPLETE")
    assert by_name.parameters["flavor"] == "big"
    assert by_name.parameters["password"] == "******"
    outputs = {o["output_key"]: o["output_value"] for o in by_name.outputs}
    assert outputs["server_id"] == service.stacks[stack_id].resources["server"].physical_id
    unresolved = heat.stacks.get(stack_id, resolve_outputs=False)
    assert not hasattr(unresolved, "outputs")


def test_list_pages_with_marker(heat: Any) -> None:
    for name in "abcde":
        heat.stacks.create(stack_name=name, template=TEMPLATE)
    assert [s.stack_name for s in heat.stacks.list(limit=4)] == ["a", "b", "c", "d"]
    assert [s.stack_name for s in heat.stacks.list(sort_dir="desc")][:2] == ["e", "d"]


def test_update_put_and_patch(heat: Any, service: MemoryService, stack_id: str) -> None:
    heat.stacks.update(stack_id, template=TEMPLATE, parameters={"flavor": "put"})
    assert service.stacks[stack_id].parameters["flavor"] == "put"
    heat.stacks.update("s1", existing=True, parameters={"password": "p"})
    assert service.stacks[stack_id].parameters == {"flavor": "put", "password": "p"}
    assert heat.stacks.get("s1").stack_status == "UPDATE_COMPLETE"
    changes = heat.stacks.preview_update("s1", template=TEMPLATE)
    assert {r["resource_name"] for r in changes["resource_changes"]["unchanged"]} == {
        "server",
        "config",
    }


def test_delete_then_lookups(heat: Any, stack_id: str) -> None:
    heat.stacks.delete("s1")
    assert heat.stacks.get(stack_id).stack_status == "DELETE_COMPLETE"
    with pytest.raises(heat_exc.HTTPNotFound, match=r"The Stack \(s1\) could not be found"):
        heat.stacks.get("s1")


def test_create_conflict_message(heat: Any, stack_id: str) -> None:
    with pytest.raises(heat_exc.HTTPConflict, match=r"The Stack \(s1\) already exists"):
        heat.stacks.create(stack_name="s1", template=TEMPLATE)


def test_events(heat: Any, stack_id: str) -> None:
    events = heat.events.list("s1")
    assert [(e.resource_name, e.resource_status) for e in events][-1] == ("s1", "CREATE_COMPLETE")
    assert events[-1].physical_resource_id == stack_id
    server_events = heat.events.list("s1", resource_name="server")
    assert [e.resource_status for e in server_events] == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]
    shown = heat.events.get("s1", "server", server_events[0].id)
    assert shown.resource_type == "OS::Heat::TestResource"
    newest = heat.events.list("s1", limit=1, sort_dir="desc")
    assert [e.id for e in newest] == [events[-1].id]


def test_resources(heat: Any, service: MemoryService, stack_id: str) -> None:
    resources = heat.resources.list("s1", nested_depth=2, with_detail=True)
    assert {r.resource_name for r in resources} == {"server", "config"}
    assert {r.stack_name for r in resources} == {"s1"}
    server = heat.resources.get("s1", "server")
    assert server.physical_resource_id == service.stacks[stack_id].resources["server"].physical_id
    assert heat.resources.metadata("s1", "server") == {"deployments": []}
    heat.resources.signal("s1", "server", data={"deploy_status_code": 0})
    assert service.stacks[stack_id].resources["server"].signals == [{"deploy_status_code": 0}]
    heat.resources.mark_unhealthy(stack_id, "server", True, "bad")
    assert heat.resources.get("s1", "server").resource_status == "CHECK_FAILED"


def test_outputs_template_environment(heat: Any, stack_id: str) -> None:
    keys = [o["output_key"] for o in heat.stacks.output_list("s1")["outputs"]]
    assert keys == ["server_id", "greeting"]
    assert heat.stacks.output_show("s1", "greeting")["output"]["output_value"] == "hello"
    assert heat.stacks.template("s1") == TEMPLATE
    assert heat.stacks.environment(stack_id) == {}
    assert heat.stacks.files("s1") == {}


def test_validate(heat: Any) -> None:
    result = heat.stacks.validate(template=TEMPLATE)
    assert result["Parameters"]["flavor"]["Default"] == "m1.small"
    with pytest.raises(heat_exc.HTTPBadRequest, match="Template version was not provided"):
        heat.stacks.validate(template={"resources": {}})


def test_actions(heat: Any, stack_id: str) -> None:
    heat.actions.suspend("s1")
    assert heat.stacks.get("s1").stack_status == "SUSPEND_COMPLETE"
    heat.actions.resume(stack_id)
    heat.actions.check(f"s1/{stack_id}")
    assert heat.stacks.get("s1").stack_status == "CHECK_COMPLETE"
    with pytest.raises(heat_exc.HTTPConflict):
        heat.actions.cancel_update("s1")


def test_snapshots_abandon(heat: Any, service: MemoryService, stack_id: str) -> None:
    snapshot = heat.stacks.snapshot("s1", "snap")
    assert [s["id"] for s in heat.stacks.snapshot_list("s1")["snapshots"]] == [snapshot["id"]]
    assert heat.stacks.snapshot_show("s1", snapshot["id"])["snapshot"]["name"] == "snap"
    heat.stacks.restore("s1", snapshot["id"])
    heat.stacks.snapshot_delete("s1", snapshot["id"])
    assert heat.stacks.export("s1")["id"] == stack_id
    assert heat.stacks.abandon("s1")["name"] == "s1"
    assert not service.stacks


def test_software(heat: Any) -> None:
    config = heat.software_configs.create(name="c", group="script", config="echo")
    deployment = heat.software_deployments.create(
        config_id=config.id, server_id="srv", action="CREATE", status="IN_PROGRESS"
    )
    assert heat.software_deployments.get(deployment.id).status == "IN_PROGRESS"
    heat.software_deployments.update(deployment.id, status="COMPLETE")
    metadata = heat.software_deployments.metadata(server_id="srv")
    assert [entry["name"] for entry in metadata] == ["c"]
    heat.software_deployments.delete(deployment.id)
    heat.software_configs.delete(config.id)


def test_catalog(heat: Any) -> None:
    assert "OS::Heat::None" in [t.resource_type for t in heat.resource_types.list()]
    assert heat.resource_types.get("OS::Heat::None")["resource_type"] == "OS::Heat::None"
    assert heat.build_info.build_info()["engine"]["revision"] == "memory-1"
    versions = [v.version for v in heat.template_versions.list()]
    assert "heat_template_version.2018-08-31" in versions
