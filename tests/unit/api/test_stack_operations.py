"""Outputs, actions and snapshots of a stack."""

from __future__ import annotations

import falcon.testing
import pytest

from tests.unit.api.conftest import StackMaker
from tests.unit.api.memory_service import MemoryService


@pytest.fixture
def stack(make_stack: StackMaker) -> str:
    return make_stack("s1")


def test_output_list_is_unresolved(client: falcon.testing.TestClient, stack: str) -> None:
    result = client.simulate_get(stack + "/outputs")
    assert result.status_code == 200
    assert result.json == {
        "outputs": [
            {"output_key": "server_id", "description": "The server"},
            {"output_key": "greeting", "description": None},
        ]
    }


def test_output_show(
    client: falcon.testing.TestClient, service: MemoryService, stack: str
) -> None:
    result = client.simulate_get(stack + "/outputs/server_id")
    assert result.status_code == 200
    (row,) = service.stacks.values()
    assert result.json == {
        "output": {
            "output_key": "server_id",
            "description": "The server",
            "output_value": row.resources["server"].physical_id,
        }
    }
    assert client.simulate_get(stack + "/outputs/nope").status_code == 404


def test_output_error_is_shown(
    client: falcon.testing.TestClient, service: MemoryService, stack: str
) -> None:
    (row,) = service.stacks.values()
    del row.resources["server"]
    output = client.simulate_get(stack + "/outputs/server_id").json["output"]
    assert output["output_error"] == "Resource server missing"
    assert output["output_value"] is None


@pytest.mark.parametrize(
    ("action", "status"),
    [("suspend", "SUSPEND_COMPLETE"), ("check", "CHECK_COMPLETE")],
)
def test_actions(client: falcon.testing.TestClient, stack: str, action: str, status: str) -> None:
    result = client.simulate_post(stack + "/actions", json={action: None})
    assert result.status_code == 200
    assert result.headers["content-type"] == "application/json"
    assert result.text == "null"
    shown = client.simulate_get(stack).json["stack"]
    assert shown["stack_status"] == status


def test_action_value_is_ignored(client: falcon.testing.TestClient, stack: str) -> None:
    assert client.simulate_post(stack + "/actions", json={"check": ""}).status_code == 200


def test_resume_after_suspend(client: falcon.testing.TestClient, stack: str) -> None:
    client.simulate_post(stack + "/actions", json={"suspend": None})
    client.simulate_post(stack + "/actions", json={"resume": None})
    assert client.simulate_get(stack).json["stack"]["stack_status"] == "RESUME_COMPLETE"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {},
            "The body must name exactly one action (one of: suspend, resume, check, "
            "cancel_update, cancel_without_rollback), not 0",
        ),
        (
            {"suspend": None, "resume": None},
            "The body must name exactly one action (one of: "
            "suspend, resume, check, cancel_update, cancel_without_rollback), not 2",
        ),
        (
            {"dance": None},
            "Unknown action 'dance', expected one of: suspend, resume, check, "
            "cancel_update, cancel_without_rollback",
        ),
    ],
)
def test_bad_actions(
    client: falcon.testing.TestClient, stack: str, body: dict[str, None], message: str
) -> None:
    result = client.simulate_post(stack + "/actions", json=body)
    assert result.status_code == 400
    assert result.json["error"]["message"] == message


def test_cancel_without_update_is_409(client: falcon.testing.TestClient, stack: str) -> None:
    result = client.simulate_post(stack + "/actions", json={"cancel_update": None})
    assert result.status_code == 409


def test_snapshots(client: falcon.testing.TestClient, stack: str) -> None:
    created = client.simulate_post(stack + "/snapshots", json={"name": "snap"})
    assert created.status_code == 200
    snapshot = created.json
    assert set(snapshot) == {
        "id",
        "name",
        "action",
        "status",
        "status_reason",
        "data",
        "creation_time",
    }
    assert (snapshot["name"], snapshot["action"], snapshot["status"]) == (
        "snap",
        "SNAPSHOT",
        "COMPLETE",
    )
    unnamed = client.simulate_post(stack + "/snapshots")
    assert unnamed.status_code == 200
    assert unnamed.json["name"] is None
    listed = client.simulate_get(stack + "/snapshots").json["snapshots"]
    assert [s["id"] for s in listed] == [snapshot["id"], unnamed.json["id"]]
    path = f"{stack}/snapshots/{snapshot['id']}"
    assert client.simulate_get(path).json == {"snapshot": snapshot}
    restored = client.simulate_post(path + "/restore")
    assert restored.status_code == 202
    assert client.simulate_get(stack).json["stack"]["stack_status"] == "RESTORE_COMPLETE"
    assert client.simulate_delete(path).status_code == 204
    assert client.simulate_get(path).status_code == 404
