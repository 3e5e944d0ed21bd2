"""Resources and events of a stack."""

from __future__ import annotations

import falcon.testing
import pytest

from tests.unit.api.conftest import HOST, StackMaker
from tests.unit.api.memory_service import MemoryService

RESOURCE_KEYS = {
    "resource_name",
    "logical_resource_id",
    "physical_resource_id",
    "resource_type",
    "resource_status",
    "resource_status_reason",
    "creation_time",
    "updated_time",
    "required_by",
    "links",
}
EVENT_KEYS = {
    "id",
    "links",
    "event_time",
    "resource_name",
    "logical_resource_id",
    "physical_resource_id",
    "resource_status",
    "resource_status_reason",
}


@pytest.fixture
def stack(make_stack: StackMaker) -> str:
    return make_stack("s1")


def test_resource_list(client: falcon.testing.TestClient, stack: str) -> None:
    result = client.simulate_get(stack + "/resources")
    assert result.status_code == 200
    resources = {r["resource_name"]: r for r in result.json["resources"]}
    server = resources["server"]
    assert set(server) == RESOURCE_KEYS
    assert server["resource_status"] == "CREATE_COMPLETE"
    assert server["required_by"] == ["config"]
    assert server["links"] == [
        {"href": f"{HOST}{stack}/resources/server", "rel": "self"},
        {"href": f"{HOST}{stack}", "rel": "stack"},
    ]


def test_resource_list_detail_and_filters(client: falcon.testing.TestClient, stack: str) -> None:
    result = client.simulate_get(
        stack + "/resources",
        query_string="type=OS::Heat::None&with_detail=True&nested_depth=2",
    )
    assert result.status_code == 200
    (config,) = result.json["resources"]
    assert config["resource_name"] == "config"
    assert set(config) == RESOURCE_KEYS | {"description", "attributes"}


def test_resource_list_rejects_unknown_parameters(
    client: falcon.testing.TestClient, stack: str
) -> None:
    result = client.simulate_get(stack + "/resources", query_string="colour=red")
    assert result.status_code == 400
    assert result.json["error"]["message"] == "Invalid filter parameters 'colour'"


def test_resource_show_with_attr(client: falcon.testing.TestClient, stack: str) -> None:
    result = client.simulate_get(
        stack + "/resources/server", query_string="with_attr=a&with_attr=b"
    )
    assert result.status_code == 200
    resource = result.json["resource"]
    assert set(resource) == RESOURCE_KEYS | {"description", "attributes"}
    assert resource["attributes"] == {"a": None, "b": None}
    assert "metadata" not in resource


def test_resource_not_found(client: falcon.testing.TestClient, stack: str) -> None:
    result = client.simulate_get(stack + "/resources/nope")
    assert result.status_code == 404
    assert result.json["error"]["message"] == "The Resource (nope) could not be found in Stack s1."


def test_metadata(client: falcon.testing.TestClient, stack: str) -> None:
    result = client.simulate_get(stack + "/resources/server/metadata")
    assert result.status_code == 200
    assert result.json == {"metadata": {"deployments": []}}


@pytest.mark.parametrize(
    ("body", "expected"), [(b'{"a": 1}', {"a": 1}), (b"", None), (b"[1]", [1])]
)
def test_signal(
    client: falcon.testing.TestClient,
    service: MemoryService,
    stack: str,
    body: bytes,
    expected: object,
) -> None:
    result = client.simulate_post(stack + "/resources/server/signal", body=body)
    assert result.status_code == 200
    assert result.headers["content-type"] == "application/json"
    assert result.text == "null"
    (row,) = service.stacks.values()
    assert row.resources["server"].signals == [expected]


def test_mark_unhealthy(client: falcon.testing.TestClient, stack: str) -> None:
    result = client.simulate_patch(
        stack + "/resources/server",
        json={"mark_unhealthy": True, "resource_status_reason": "broken"},
    )
    assert result.status_code == 200
    assert result.text == "null"
    resource = client.simulate_get(stack + "/resources/server").json["resource"]
    assert resource["resource_status"] == "CHECK_FAILED"
    assert resource["resource_status_reason"] == "broken"


def test_mark_unhealthy_needs_the_flag(client: falcon.testing.TestClient, stack: str) -> None:
    result = client.simulate_patch(stack + "/resources/server", json={"reason": "x"})
    assert result.status_code == 400
    assert result.json["error"]["message"] == "mark_unhealthy: is required"


def test_stack_events(client: falcon.testing.TestClient, stack: str) -> None:
    result = client.simulate_get(stack + "/events")
    assert result.status_code == 200
    events = result.json["events"]
    assert [(e["resource_name"], e["resource_status"]) for e in events] == [
        ("s1", "CREATE_IN_PROGRESS"),
        ("server", "CREATE_IN_PROGRESS"),
        ("server", "CREATE_COMPLETE"),
        ("config", "CREATE_IN_PROGRESS"),
        ("config", "CREATE_COMPLETE"),
        ("s1", "CREATE_COMPLETE"),
    ]
    last = events[-1]
    assert set(last) == EVENT_KEYS
    stack_id = stack.rsplit("/", 1)[1]
    assert last["physical_resource_id"] == stack_id
    hrefs = {link["rel"]: link["href"] for link in last["links"]}
    assert hrefs["stack"].rsplit("/", 1)[1] == stack_id
    assert hrefs["self"] == f"{HOST}{stack}/resources/s1/events/{last['id']}"


def test_events_paging_as_osc_waits(client: falcon.testing.TestClient, stack: str) -> None:
    newest = client.simulate_get(stack + "/events", query_string="limit=1&sort_dir=desc")
    (marker,) = newest.json["events"]
    assert marker["resource_status"] == "CREATE_COMPLETE"
    client.simulate_post(stack + "/actions", json={"check": None})
    after = client.simulate_get(
        stack + "/events", query_string=f"marker={marker['id']}&sort_dir=asc"
    ).json["events"]
    assert after[0]["resource_status"] == "CHECK_IN_PROGRESS"
    assert after[-1]["resource_name"] == "s1"
    assert after[-1]["resource_status"] == "CHECK_COMPLETE"


def test_event_filters(client: falcon.testing.TestClient, stack: str) -> None:
    result = client.simulate_get(
        stack + "/events", query_string="resource_status=COMPLETE&resource_name=server"
    )
    assert [e["resource_status"] for e in result.json["events"]] == ["CREATE_COMPLETE"]


def test_resource_events_and_show(client: falcon.testing.TestClient, stack: str) -> None:
    result = client.simulate_get(stack + "/resources/server/events")
    assert result.status_code == 200
    events = result.json["events"]
    assert len(events) == 2
    # The same fields as the stack's list (Heat's summary), so each is one of the stack's.
    assert set(events[0]) == EVENT_KEYS
    everything = client.simulate_get(stack + "/events").json["events"]
    assert all(event in everything for event in events)
    shown = client.simulate_get(stack + f"/resources/server/events/{events[0]['id']}")
    assert shown.status_code == 200
    detail = {"resource_type", "resource_properties"}
    assert set(shown.json["event"]) == EVENT_KEYS | detail
    assert {k: v for k, v in shown.json["event"].items() if k not in detail} == events[0]


def test_resource_events_of_unknown_resource(
    client: falcon.testing.TestClient, stack: str
) -> None:
    assert client.simulate_get(stack + "/resources/nope/events").status_code == 404
    assert client.simulate_get(stack + "/resources/server/events/nope").status_code == 404
