"""The local engine daemon's API: only the token's holder is served, as an admin, with the
daemon's own methods beside the API."""

from __future__ import annotations

import falcon.testing
import pytest

from tests.unit.api.conftest import OTHER_TENANT, TENANT, tenant_path
from tests.unit.api.memory_service import MemoryService
from thermik.api import owner
from thermik.api.app import build_app
from thermik.conf.settings import LimitSettings

TOKEN = "daemon-token"
HEADERS = {"X-Auth-Token": TOKEN, "X-Auth-User": "alice"}


@pytest.fixture
def stopped() -> list[bool]:
    return []


@pytest.fixture
def client(service: MemoryService, stopped: list[bool]) -> falcon.testing.TestClient:
    api = build_app(service, owner.OwnerContext(TOKEN), LimitSettings())
    methods = {"ping": lambda: {"pid": 1}, "stop": lambda: stopped.append(True) or {}}
    return falcon.testing.TestClient(owner.with_management(api, TOKEN, methods))


@pytest.mark.parametrize("headers", [{}, {"X-Auth-Token": "wrong"}, {"X-Auth-Token": ""}])
def test_the_api_needs_the_token(
    client: falcon.testing.TestClient, headers: dict[str, str]
) -> None:
    result = client.simulate_get(tenant_path("/stacks"), headers=headers)
    assert result.status_code == 401
    assert "X-Auth-Token" in result.json["error"]["message"]


def test_the_token_holder_owns_what_they_create(client: falcon.testing.TestClient) -> None:
    body = {"stack_name": "web", "template": {"heat_template_version": "2018-08-31"}}
    created = client.simulate_post(tenant_path("/stacks"), json=body, headers=HEADERS)
    assert created.status_code == 201, created.text
    shown = client.simulate_get(tenant_path("/stacks/web"), headers=HEADERS)
    assert shown.status_code == 302
    listed = client.simulate_get(tenant_path("/stacks"), headers=HEADERS)
    assert [s["stack_owner"] for s in listed.json["stacks"]] == ["alice"]


def test_the_token_holder_is_an_admin_of_every_tenant(
    client: falcon.testing.TestClient,
) -> None:
    for tenant in (TENANT, OTHER_TENANT):
        body = {"stack_name": f"s-{tenant}", "template": {"heat_template_version": "2018-08-31"}}
        made = client.simulate_post(tenant_path("/stacks", tenant), json=body, headers=HEADERS)
        assert made.status_code == 201, made.text
    everyone = client.simulate_get(
        tenant_path("/stacks"), params={"global_tenant": "True"}, headers=HEADERS
    )
    assert everyone.status_code == 200, everyone.text
    names = sorted(s["stack_name"] for s in everyone.json["stacks"])
    assert names == sorted([f"s-{TENANT}", f"s-{OTHER_TENANT}"])
    own = client.simulate_get(tenant_path("/stacks"), headers=HEADERS)
    assert [s["stack_name"] for s in own.json["stacks"]] == [f"s-{TENANT}"]


def test_the_daemons_methods_need_the_token(
    client: falcon.testing.TestClient, stopped: list[bool]
) -> None:
    assert client.simulate_post("/engine/v1/stop").status_code == 401
    wrong = client.simulate_post("/engine/v1/stop", headers={"X-Auth-Token": "x"})
    assert wrong.status_code == 401
    assert stopped == []
    assert client.simulate_post("/engine/v1/stop", headers=HEADERS).status_code == 200
    assert stopped == [True]


def test_the_daemons_methods_answer_json(client: falcon.testing.TestClient) -> None:
    pinged = client.simulate_post("/engine/v1/ping", headers=HEADERS)
    assert pinged.status_code == 200
    assert pinged.json == {"pid": 1}
    assert client.simulate_post("/engine/v1/nothing", headers=HEADERS).status_code == 404
    assert client.simulate_get("/engine/v1/ping", headers=HEADERS).status_code == 404
