"""Stacks: create, list, lookups, show, update, delete, previews, documents."""

from __future__ import annotations

import json
from typing import Any

import falcon.testing
import pytest
import yaml

from tests.unit.api.conftest import (
    BODY_LIMIT,
    HOST,
    OTHER_TENANT,
    TEMPLATE,
    TENANT,
    StackMaker,
    local,
    tenant_path,
)
from tests.unit.api.memory_service import MemoryService

SHOW_KEYS = {
    "id",
    "stack_name",
    "links",
    "description",
    "template_description",
    "stack_status",
    "stack_status_reason",
    "creation_time",
    "updated_time",
    "deletion_time",
    "parameters",
    "outputs",
    "disable_rollback",
    "timeout_mins",
    "notification_topics",
    "capabilities",
    "stack_owner",
    "parent",
    "stack_user_project_id",
    "tags",
}
LIST_KEYS = {
    "id",
    "stack_name",
    "stack_status",
    "stack_status_reason",
    "creation_time",
    "updated_time",
    "deletion_time",
    "description",
    "links",
    "stack_owner",
    "parent",
    "stack_user_project_id",
    "tags",
}


def show(client: falcon.testing.TestClient, path: str, query: str = "") -> dict[str, Any]:
    result = client.simulate_get(path, query_string=query)
    assert result.status_code == 200, result.text
    assert result.headers["content-type"] == "application/json"
    return result.json["stack"]


# -- create ------------------------------------------------------------------------------------


def test_create_answers_201_with_location(
    client: falcon.testing.TestClient, service: MemoryService
) -> None:
    result = client.simulate_post(
        tenant_path("/stacks"), json={"stack_name": "s1", "template": TEMPLATE}
    )
    assert result.status_code == 201
    assert result.headers["content-type"] == "application/json"
    (stack,) = service.stacks.values()
    location = f"{HOST}/v1/{TENANT}/stacks/s1/{stack.identity.id}"
    assert result.headers["location"] == location
    assert result.json == {
        "stack": {"id": stack.identity.id, "links": [{"href": location, "rel": "self"}]}
    }


def test_create_passes_every_field(make_stack: StackMaker, service: MemoryService) -> None:
    make_stack(
        parameters={"flavor": "m1.large"},
        environment={"parameter_defaults": {"x": 1}},
        files={"a.yaml": "b: c"},
        disable_rollback="False",
        timeout_mins=7,
        tags="a, b",
    )
    (stack,) = service.stacks.values()
    assert stack.parameters["flavor"] == "m1.large"
    assert stack.environment == {"parameter_defaults": {"x": 1}}
    assert stack.files == {"a.yaml": "b: c"}
    assert stack.disable_rollback is False
    assert stack.timeout_mins == 7
    assert stack.tags == ("a", "b")


def test_create_accepts_template_and_environment_as_text(
    make_stack: StackMaker, service: MemoryService
) -> None:
    make_stack(template=yaml.safe_dump(TEMPLATE), environment="parameters: {}\n")
    (stack,) = service.stacks.values()
    assert set(stack.resources) == {"server", "config"}


@pytest.mark.parametrize(
    ("tags", "expected"), [("a,b", ("a", "b")), (["x", "y"], ("x", "y")), (None, ())]
)
def test_tags_as_string_list_or_null(
    make_stack: StackMaker, service: MemoryService, tags: Any, expected: tuple[str, ...]
) -> None:
    make_stack(tags=tags)
    (stack,) = service.stacks.values()
    assert stack.tags == expected


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"template": TEMPLATE}, "stack_name: is required"),
        ({"stack_name": "s"}, "template: No template specified"),
        (
            {"stack_name": 3, "template": TEMPLATE},
            "stack_name: must be a string, not a JSON number",
        ),
        (
            {"stack_name": "s", "template": []},
            "template: must be an object or a string, not a JSON array",
        ),
        (
            {"stack_name": "s", "template": TEMPLATE, "tags": 5},
            "tags: must be a comma-separated string or an array of strings, not a JSON number",
        ),
        (
            {"stack_name": "s", "template": TEMPLATE, "files": {"f": 1}},
            "files.f: must be a string, not a JSON number",
        ),
        (
            {"stack_name": "s", "template": TEMPLATE, "disable_rollback": "maybe"},
            "disable_rollback: must be a boolean, not 'maybe'",
        ),
        (
            {"stack_name": "s", "template": TEMPLATE, "timeout_mins": 0},
            "timeout_mins: must be at least 1",
        ),
        (
            {"stack_name": "s", "template": TEMPLATE, "converge": True},
            "converge: is only allowed on update",
        ),
        (
            {"stack_name": "s", "template": TEMPLATE, "environment_files": [1]},
            "environment_files[0]: must be a string, not a JSON number",
        ),
        (
            {"stack_name": "s", "template": TEMPLATE, "adopt_stack_data": "{"},
            "adopt_stack_data: must be a JSON object (an abandon document)",
        ),
    ],
)
def test_create_rejects_bad_fields(
    client: falcon.testing.TestClient, body: dict[str, Any], message: str
) -> None:
    result = client.simulate_post(tenant_path("/stacks"), json=body)
    assert result.status_code == 400
    assert result.json["error"]["message"] == message


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"", "The request body must be a JSON object, not empty"),
        (b"null", "The request body must be a JSON object, not empty"),
        (b"[1]", "The request body must be a JSON object, not a JSON array"),
        (b'{"a": ', "The request body is not valid JSON: Expecting value at line 1 column 7"),
        (b"\xff\xfe", "The request body is not UTF-8: invalid byte at position 0"),
        (b'{"a": NaN}', "The request body is not valid JSON: NaN is not a number"),
        (b"[" * 5000, "The request body is nested too deeply"),
    ],
)
def test_malformed_bodies_are_400(
    client: falcon.testing.TestClient, raw: bytes, message: str
) -> None:
    result = client.simulate_post(
        tenant_path("/stacks"), body=raw, headers={"Content-Type": "application/json"}
    )
    assert result.status_code == 400
    assert result.json["error"]["message"] == message


def test_oversized_body_is_413(client: falcon.testing.TestClient) -> None:
    body = json.dumps({"stack_name": "s", "template": {"x": "y" * BODY_LIMIT}})
    result = client.simulate_post(tenant_path("/stacks"), body=body)
    assert result.status_code == 413
    assert result.json["error"]["type"] == "RequestLimitExceeded"
    assert str(BODY_LIMIT) in result.json["error"]["message"]


def test_duplicate_name_is_409(make_stack: StackMaker, client: falcon.testing.TestClient) -> None:
    make_stack("s5")
    result = client.simulate_post(
        tenant_path("/stacks"), json={"stack_name": "s5", "template": TEMPLATE}
    )
    assert result.status_code == 409
    assert result.json["error"]["type"] == "StackExists"
    assert result.json["error"]["message"] == "The Stack (s5) already exists."


def test_adopt(client: falcon.testing.TestClient, service: MemoryService) -> None:
    adopt = json.dumps({"template": TEMPLATE, "resources": {}})
    result = client.simulate_post(
        tenant_path("/stacks"), json={"stack_name": "a", "adopt_stack_data": adopt}
    )
    assert result.status_code == 201
    (stack,) = service.stacks.values()
    assert stack.action == "ADOPT"


# -- list --------------------------------------------------------------------------------------


def test_list_keys_and_order(make_stack: StackMaker, client: falcon.testing.TestClient) -> None:
    make_stack("a")
    make_stack("b", tags="t1")
    result = client.simulate_get(tenant_path("/stacks"))
    assert result.status_code == 200
    stacks = result.json["stacks"]
    assert [s["stack_name"] for s in stacks] == ["a", "b"]
    assert set(stacks[0]) == LIST_KEYS
    assert stacks[0]["stack_status"] == "CREATE_COMPLETE"
    assert stacks[1]["tags"] == ["t1"]
    assert stacks[0]["links"][0]["href"].startswith(f"{HOST}/v1/{TENANT}/stacks/a/")


def test_list_detail_has_show_keys(
    make_stack: StackMaker, client: falcon.testing.TestClient
) -> None:
    make_stack("a")
    (stack,) = client.simulate_get(tenant_path("/stacks/detail")).json["stacks"]
    assert set(stack) == SHOW_KEYS - {"outputs"}


def test_list_pages_by_marker(make_stack: StackMaker, client: falcon.testing.TestClient) -> None:
    ids = [make_stack(name).rsplit("/", 1)[1] for name in "abcde"]
    first = client.simulate_get(tenant_path("/stacks"), query_string="limit=2").json["stacks"]
    assert [s["id"] for s in first] == ids[:2]
    second = client.simulate_get(
        tenant_path("/stacks"), query_string=f"limit=2&marker={ids[1]}"
    ).json["stacks"]
    assert [s["id"] for s in second] == ids[2:4]
    last = client.simulate_get(tenant_path("/stacks"), query_string=f"marker={ids[4]}")
    assert last.json["stacks"] == []


def test_list_query_parameters(make_stack: StackMaker, client: falcon.testing.TestClient) -> None:
    make_stack("a", tags="x,y")
    make_stack("b", tags="y")
    deleted = make_stack("c")
    client.simulate_delete(deleted)

    def names(query: str) -> list[str]:
        result = client.simulate_get(tenant_path("/stacks"), query_string=query)
        assert result.status_code == 200, result.text
        return [s["stack_name"] for s in result.json["stacks"]]

    assert names("tags=x,y") == ["a"]
    assert names("tags_any=x&tags_any=y") == ["a", "b"]
    assert names("not_tags=y") == []
    assert names("show_deleted=True") == ["a", "b", "c"]
    assert names("show_deleted=False") == ["a", "b"]
    assert names("sort_keys=name&sort_dir=desc") == ["b", "a"]
    assert names("name=b") == ["b"]
    assert names("status=COMPLETE&status=COMPLETE") == ["a", "b"]
    counted = client.simulate_get(tenant_path("/stacks"), query_string="with_count=True&limit=1")
    assert counted.json["count"] == 2
    assert len(counted.json["stacks"]) == 1


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("limit=x", "Only integer is acceptable by 'limit', not 'x'"),
        ("limit=-1", "limit: must be at least 0"),
        (
            "show_deleted=yes",
            "Unrecognized value 'yes' for show_deleted, acceptable values are: true, false",
        ),
        ("sort_dir=up", "Unknown sort direction 'up', must be one of: asc, desc"),
    ],
)
def test_list_rejects_bad_query(
    client: falcon.testing.TestClient, query: str, message: str
) -> None:
    result = client.simulate_get(tenant_path("/stacks"), query_string=query)
    assert result.status_code == 400
    assert result.json["error"]["message"] == message


def test_global_tenant_needs_an_admin(client: falcon.testing.TestClient) -> None:
    result = client.simulate_get(tenant_path("/stacks"), query_string="global_tenant=True")
    assert result.status_code == 403


# -- lookups -----------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "PATCH", "DELETE"])
def test_lookup_redirects_every_method(
    make_stack: StackMaker, client: falcon.testing.TestClient, method: str
) -> None:
    canonical = make_stack("s1")
    result = client.simulate_request(
        method, tenant_path("/stacks/s1"), query_string="resolve_outputs=False", json={"a": 1}
    )
    assert result.status_code == 302
    assert result.headers["location"] == f"{HOST}{canonical}?resolve_outputs=False"
    assert result.headers["content-type"] == "application/json"
    assert result.json["code"] == "302 Found"


@pytest.mark.parametrize(
    "suffix", ["resources", "events", "template", "actions", "environment", "files", "outputs"]
)
def test_lookup_redirects_sub_paths(
    make_stack: StackMaker, client: falcon.testing.TestClient, suffix: str
) -> None:
    canonical = make_stack("s1")
    stack_id = canonical.rsplit("/", 1)[1]
    for name_or_id in ("s1", stack_id):
        result = client.simulate_get(tenant_path(f"/stacks/{name_or_id}/{suffix}"))
        assert result.status_code == 302
        assert result.headers["location"] == f"{HOST}{canonical}/{suffix}"


def test_lookup_of_deleted_stack(
    make_stack: StackMaker, client: falcon.testing.TestClient
) -> None:
    canonical = make_stack("s1")
    stack_id = canonical.rsplit("/", 1)[1]
    assert client.simulate_delete(canonical).status_code == 204
    assert client.simulate_get(tenant_path("/stacks/s1")).status_code == 404
    by_id = client.simulate_get(tenant_path(f"/stacks/{stack_id}"))
    assert by_id.status_code == 302
    stack = show(client, local(by_id.headers["location"]))
    assert stack["stack_status"] == "DELETE_COMPLETE"
    assert stack["deletion_time"] is not None


# -- show --------------------------------------------------------------------------------------


def test_show_keys_and_values(make_stack: StackMaker, client: falcon.testing.TestClient) -> None:
    canonical = make_stack("s1", tags="a,b", timeout_mins=5)
    stack_id = canonical.rsplit("/", 1)[1]
    stack = show(client, canonical)
    assert set(stack) == SHOW_KEYS
    assert stack["stack_status"] == "CREATE_COMPLETE"
    assert stack["links"] == [{"href": f"{HOST}{canonical}", "rel": "self"}]
    assert stack["creation_time"] == "2026-01-01T00:00:01Z"
    assert stack["description"] == stack["template_description"] == "A test stack"
    assert stack["tags"] == ["a", "b"]
    assert stack["timeout_mins"] == 5
    assert stack["parameters"] == {
        "flavor": "m1.small",
        "password": "******",
        "OS::stack_id": stack_id,
        "OS::stack_name": "s1",
        "OS::project_id": TENANT,
    }
    outputs = {o["output_key"]: o for o in stack["outputs"]}
    assert outputs["greeting"] == {
        "output_key": "greeting",
        "description": None,
        "output_value": "hello",
    }


def test_show_without_outputs_tolerates_repeated_params(
    make_stack: StackMaker, client: falcon.testing.TestClient
) -> None:
    canonical = make_stack("s1")
    stack = show(client, canonical, "resolve_outputs=False&resolve_outputs=False")
    assert "outputs" not in stack


def test_show_with_wrong_name_is_404(
    make_stack: StackMaker, client: falcon.testing.TestClient
) -> None:
    stack_id = make_stack("s1").rsplit("/", 1)[1]
    assert client.simulate_get(tenant_path(f"/stacks/other/{stack_id}")).status_code == 404


# -- update, delete ----------------------------------------------------------------------------


def test_put_replaces(
    make_stack: StackMaker, client: falcon.testing.TestClient, service: MemoryService
) -> None:
    canonical = make_stack("s1", parameters={"flavor": "big"})
    template = {**TEMPLATE, "resources": {"only": {"type": "OS::Heat::None"}}}
    result = client.simulate_put(canonical, json={"template": template, "parameters": {}})
    assert result.status_code == 202
    assert result.headers["content-type"] == "application/json"
    assert result.json["code"] == "202 Accepted"
    (stack,) = service.stacks.values()
    assert set(stack.resources) == {"only"}
    assert stack.parameters["flavor"] == "m1.small"
    assert show(client, canonical)["stack_status"] == "UPDATE_COMPLETE"


def test_put_without_template_is_400(
    make_stack: StackMaker, client: falcon.testing.TestClient
) -> None:
    result = client.simulate_put(make_stack("s1"), json={"parameters": {}})
    assert result.status_code == 400
    assert result.json["error"]["message"] == "template: No template specified"


def test_patch_with_null_template_keeps_it(
    make_stack: StackMaker, client: falcon.testing.TestClient, service: MemoryService
) -> None:
    canonical = make_stack("s1", parameters={"flavor": "big"})
    body = {"template": None, "files": {}, "environment": {}, "parameters": {"password": "p"}}
    result = client.simulate_patch(canonical, json=body)
    assert result.status_code == 202
    (stack,) = service.stacks.values()
    assert set(stack.resources) == {"server", "config"}
    assert stack.parameters == {"flavor": "big", "password": "p"}


def test_patch_clear_parameters(
    make_stack: StackMaker, client: falcon.testing.TestClient, service: MemoryService
) -> None:
    canonical = make_stack("s1", parameters={"flavor": "big"})
    result = client.simulate_patch(canonical, json={"clear_parameters": ["flavor"]})
    assert result.status_code == 202
    (stack,) = service.stacks.values()
    assert stack.parameters["flavor"] == "m1.small"


def test_update_unknown_parameter_is_400(
    make_stack: StackMaker, client: falcon.testing.TestClient
) -> None:
    result = client.simulate_patch(make_stack("s1"), json={"parameters": {"nope": 1}})
    assert result.status_code == 400
    assert result.json["error"]["message"] == "The Parameter (nope) was not defined in template."


def test_update_while_in_progress_is_409(
    make_stack: StackMaker, client: falcon.testing.TestClient, service: MemoryService
) -> None:
    canonical = make_stack("s1")
    (stack,) = service.stacks.values()
    stack.status = "IN_PROGRESS"
    result = client.simulate_patch(canonical, json={})
    assert result.status_code == 409
    assert result.json["error"]["type"] == "ActionInProgress"


def test_delete_twice(make_stack: StackMaker, client: falcon.testing.TestClient) -> None:
    canonical = make_stack("s1")
    first = client.simulate_delete(canonical)
    assert first.status_code == 204
    assert first.text == ""
    assert client.simulate_delete(canonical).status_code == 404


# -- previews ----------------------------------------------------------------------------------


def test_preview_create(client: falcon.testing.TestClient, service: MemoryService) -> None:
    result = client.simulate_post(
        tenant_path("/stacks/preview"), json={"stack_name": "p", "template": TEMPLATE}
    )
    assert result.status_code == 200
    stack = result.json["stack"]
    assert stack["id"] == "None"
    assert stack["links"][0]["href"] == f"{HOST}/v1/{TENANT}/stacks/p/None"
    assert "stack_status" not in stack
    assert {r["resource_name"] for r in stack["resources"]} == {"server", "config"}
    assert all("properties" in r for r in stack["resources"])
    assert not service.stacks


@pytest.mark.parametrize("method", ["PUT", "PATCH"])
def test_preview_update(
    make_stack: StackMaker, client: falcon.testing.TestClient, method: str
) -> None:
    canonical = make_stack("s1")
    template = {
        **TEMPLATE,
        "resources": {"server": {"type": "OS::Heat::None"}, "new": {"type": "OS::Heat::None"}},
    }
    result = client.simulate_request(
        method,
        canonical + "/preview",
        query_string="show_nested=True",
        json={"template": template},
    )
    assert result.status_code == 200
    changes = result.json["resource_changes"]
    assert set(changes) == {"added", "deleted", "replaced", "unchanged", "updated"}
    assert [r["resource_name"] for r in changes["added"]] == ["new"]
    assert [r["resource_name"] for r in changes["deleted"]] == ["config"]


# -- documents ---------------------------------------------------------------------------------


def test_template_environment_files(
    make_stack: StackMaker, client: falcon.testing.TestClient
) -> None:
    canonical = make_stack("s1", environment={"parameters": {}}, files={"f": "content"})
    assert client.simulate_get(canonical + "/template").json == TEMPLATE
    assert client.simulate_get(canonical + "/environment").json == {"parameters": {}}
    assert client.simulate_get(canonical + "/files").json == {"f": "content"}


def test_export_and_abandon(
    make_stack: StackMaker, client: falcon.testing.TestClient, service: MemoryService
) -> None:
    canonical = make_stack("s1")
    exported = client.simulate_get(canonical + "/export")
    assert exported.status_code == 200
    assert exported.json["name"] == "s1"
    assert set(exported.json["resources"]) == {"server", "config"}
    abandoned = client.simulate_delete(canonical + "/abandon")
    assert abandoned.status_code == 200
    assert abandoned.json == exported.json
    assert not service.stacks


# -- tenants -----------------------------------------------------------------------------------


def test_tenants_are_isolated(make_stack: StackMaker, client: falcon.testing.TestClient) -> None:
    canonical = make_stack("s1", tenant=TENANT)
    stack_id = canonical.rsplit("/", 1)[1]
    other = f"/v1/{OTHER_TENANT}/stacks/s1/{stack_id}"
    assert client.simulate_get(tenant_path("/stacks", OTHER_TENANT)).json["stacks"] == []
    assert client.simulate_get(tenant_path("/stacks/s1", OTHER_TENANT)).status_code == 404
    assert client.simulate_get(tenant_path(f"/stacks/{stack_id}", OTHER_TENANT)).status_code == 404
    assert client.simulate_get(other).status_code == 404
    assert client.simulate_patch(other, json={}).status_code == 404
    assert client.simulate_delete(other).status_code == 404
    assert client.simulate_post(other + "/actions", json={"suspend": None}).status_code == 404
    assert client.simulate_get(other + "/resources").status_code == 404
    assert client.simulate_get(other + "/template").status_code == 404
    assert show(client, canonical)["stack_status"] == "CREATE_COMPLETE"
    make_stack("s1", tenant=OTHER_TENANT)
