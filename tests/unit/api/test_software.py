"""Software configs, deployments and a server's deployment metadata."""

from __future__ import annotations

from typing import Any

import falcon.testing
import pytest

from tests.unit.api.conftest import OTHER_TENANT, tenant_path

CONFIG = {
    "name": "cfg",
    "group": "script",
    "config": "#!/bin/sh\necho $foo",
    "inputs": [{"name": "foo"}],
    "outputs": [{"name": "result"}],
    "options": {},
}


def create_config(client: falcon.testing.TestClient, **fields: Any) -> dict[str, Any]:
    result = client.simulate_post(tenant_path("/software_configs"), json={**CONFIG, **fields})
    assert result.status_code == 200, result.text
    return result.json["software_config"]


def create_deployment(
    client: falcon.testing.TestClient, config_id: str, server_id: str = "srv"
) -> dict[str, Any]:
    body = {
        "config_id": config_id,
        "server_id": server_id,
        "action": "CREATE",
        "status": "IN_PROGRESS",
        "input_values": {"foo": "bar"},
    }
    result = client.simulate_post(tenant_path("/software_deployments"), json=body)
    assert result.status_code == 200, result.text
    return result.json["software_deployment"]


def test_config_crud(client: falcon.testing.TestClient) -> None:
    config = create_config(client)
    assert set(config) == {
        "id",
        "name",
        "group",
        "config",
        "inputs",
        "outputs",
        "options",
        "creation_time",
    }
    assert config["inputs"] == [{"name": "foo", "type": "String"}]
    path = tenant_path(f"/software_configs/{config['id']}")
    assert client.simulate_get(path).json == {"software_config": config}
    listed = client.simulate_get(tenant_path("/software_configs"), query_string="limit=10")
    assert listed.json == {
        "software_configs": [
            {
                "id": config["id"],
                "name": "cfg",
                "group": "script",
                "creation_time": config["creation_time"],
            }
        ]
    }
    assert client.simulate_delete(path).status_code == 204
    assert client.simulate_get(path).status_code == 404


def test_config_defaults_group(client: falcon.testing.TestClient) -> None:
    config = create_config(client, group=None, inputs=None, outputs=None)
    assert config["group"] == "Heat::Ungrouped"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"inputs": "x"}, "inputs: must be an array of objects, not a JSON string"),
        ({"inputs": [1]}, "inputs[0]: must be an object, not a JSON number"),
        ({"options": []}, "options: must be an object, not a JSON array"),
    ],
)
def test_config_rejects_bad_fields(
    client: falcon.testing.TestClient, fields: dict[str, Any], message: str
) -> None:
    result = client.simulate_post(tenant_path("/software_configs"), json={**CONFIG, **fields})
    assert result.status_code == 400
    assert result.json["error"]["message"] == message


def test_deployment_crud(client: falcon.testing.TestClient) -> None:
    config = create_config(client)
    deployment = create_deployment(client, config["id"])
    assert set(deployment) == {
        "id",
        "config_id",
        "server_id",
        "input_values",
        "output_values",
        "action",
        "status",
        "status_reason",
        "creation_time",
    }
    path = tenant_path(f"/software_deployments/{deployment['id']}")
    assert client.simulate_get(path).json == {"software_deployment": deployment}
    updated = client.simulate_put(
        path, json={"status": "COMPLETE", "output_values": {"result": 1}, "action": None}
    )
    assert updated.status_code == 200
    changed = updated.json["software_deployment"]
    assert (changed["status"], changed["action"], changed["output_values"]) == (
        "COMPLETE",
        "CREATE",
        {"result": 1},
    )
    assert changed["updated_time"] is not None
    listed = client.simulate_get(
        tenant_path("/software_deployments"), query_string="server_id=srv"
    )
    assert [d["id"] for d in listed.json["software_deployments"]] == [deployment["id"]]
    other = client.simulate_get(tenant_path("/software_deployments"), query_string="server_id=x")
    assert other.json["software_deployments"] == []
    assert client.simulate_delete(path).status_code == 204
    assert client.simulate_get(path).status_code == 404


def test_deployment_needs_config_and_server(client: falcon.testing.TestClient) -> None:
    result = client.simulate_post(tenant_path("/software_deployments"), json={"server_id": "s"})
    assert result.status_code == 400
    assert result.json["error"]["message"] == "config_id: is required"


def test_server_metadata_sorted_by_name(client: falcon.testing.TestClient) -> None:
    second = create_config(client, name="b")
    first = create_config(client, name="a")
    create_deployment(client, second["id"])
    create_deployment(client, first["id"])
    result = client.simulate_get(tenant_path("/software_deployments/metadata/srv"))
    assert result.status_code == 200
    metadata = result.json["metadata"]
    assert [entry["name"] for entry in metadata] == ["a", "b"]
    assert metadata[0]["inputs"] == [{"name": "foo", "type": "String", "value": "bar"}]


def test_software_is_tenant_scoped(client: falcon.testing.TestClient) -> None:
    config = create_config(client)
    path = tenant_path(f"/software_configs/{config['id']}", OTHER_TENANT)
    assert client.simulate_get(path).status_code == 404
    listed = client.simulate_get(tenant_path("/software_configs", OTHER_TENANT))
    assert listed.json["software_configs"] == []
