"""Authorization: Heat's rule names and defaults, overridden by the operator's policy.yaml."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import falcon.testing
import pytest

from tests.unit.api.conftest import OTHER_TENANT, TEMPLATE, TENANT, tenant_path
from tests.unit.api.memory_service import MemoryService
from thermik.api.app import all_routes, build_app
from thermik.api.auth import KeystoneContext, WsgiApp
from thermik.api.policy import Policy
from thermik.api.v1.endpoint import Deps
from thermik.cmd import api
from thermik.conf import policies
from thermik.conf.settings import LimitSettings

CREATE = {"stack_name": "s", "template": TEMPLATE}


def configured(tmp_path: Path, policy_yaml: str, conf: str = "") -> WsgiApp:
    """The app ``thermik-api`` serves with ``policy.yaml`` beside its thermik.conf."""
    (tmp_path / "policy.yaml").write_text(policy_yaml, encoding="utf-8")
    conf_file = tmp_path / "thermik.conf"
    conf_file.write_text(conf, encoding="utf-8")
    return api.build_wsgi_app(api.load_conf([str(conf_file)]), MemoryService())


def keystone(service: MemoryService, policy: Policy | None = None) -> falcon.testing.TestClient:
    """The app behind the identity keystonemiddleware establishes (the headers below)."""
    policy = policy or Policy()
    return falcon.testing.TestClient(
        build_app(service, KeystoneContext(policy), LimitSettings(), policy)
    )


def identity(project: str, roles: str) -> dict[str, str]:
    return {
        "X-Identity-Status": "Confirmed",
        "X-Project-Id": project,
        "X-User-Id": "u1",
        "X-Roles": roles,
    }


def test_policy_file_denies_stack_create_with_heats_403(tmp_path: Path) -> None:
    client = falcon.testing.TestClient(configured(tmp_path, '"stacks:create": "!"\n'))
    denied = client.simulate_post(tenant_path("/stacks"), json=CREATE)
    assert denied.status_code == 403
    assert denied.json == {
        "code": 403,
        "title": "Forbidden",
        "explanation": "Access was denied to this resource.",
        "error": {
            "type": "Forbidden",
            "message": "You are not authorized to use stacks:create.",
            "traceback": None,
        },
    }
    listed = client.simulate_get(tenant_path("/stacks"))
    assert (listed.status_code, listed.json) == (200, {"stacks": []})


def test_policy_file_opens_an_admin_rule(tmp_path: Path) -> None:
    app = configured(tmp_path, '"service:index": "role:member"\n')
    result = falcon.testing.TestClient(app).simulate_get(tenant_path("/services"))
    assert result.status_code == 200
    assert result.json["services"][0]["binary"] == "thermik-engine"


def test_policy_file_named_in_oslo_policy_section(tmp_path: Path) -> None:
    (tmp_path / "rules.yaml").write_text('"build_info:build_info": "!"\n', encoding="utf-8")
    conf = f"[oslo_policy]\npolicy_file = {tmp_path / 'rules.yaml'}\n"
    client = falcon.testing.TestClient(configured(tmp_path, "", conf))
    assert client.simulate_get(tenant_path("/build_info")).status_code == 403
    assert client.simulate_get(tenant_path("/stacks")).status_code == 200


def test_noauth_caller_is_a_member_never_an_admin(client: falcon.testing.TestClient) -> None:
    created = client.simulate_post(tenant_path("/stacks"), json=CREATE)
    assert created.status_code == 201
    assert client.simulate_get(tenant_path("/stacks")).status_code == 200
    for path, query, rule in (
        ("/services", "", "service:index"),
        ("/stacks", "global_tenant=True", "stacks:global_index"),
    ):
        denied = client.simulate_get(tenant_path(path), query_string=query)
        assert denied.status_code == 403
        message = denied.json["error"]["message"]
        assert message.startswith(f"You are not authorized to use {rule}. ")
        assert message.endswith("is only allowed for administrators by default.")


def test_keystone_reader_reads_member_writes(service: MemoryService) -> None:
    client = keystone(service)
    reader = identity(TENANT, "reader")
    assert client.simulate_get(tenant_path("/stacks"), headers=reader).status_code == 200
    denied = client.simulate_post(tenant_path("/stacks"), json=CREATE, headers=reader)
    assert denied.status_code == 403
    assert not service.stacks
    member = identity(TENANT, "member")
    created = client.simulate_post(tenant_path("/stacks"), json=CREATE, headers=member)
    assert created.status_code == 201


def test_keystone_admin_only_routes(service: MemoryService) -> None:
    client = keystone(service)
    for roles, status in (("member", 403), ("admin", 200)):
        headers = identity(OTHER_TENANT, roles)
        services = client.simulate_get(tenant_path("/services", OTHER_TENANT), headers=headers)
        stacks = tenant_path("/stacks", OTHER_TENANT)
        everyone = client.simulate_get(stacks, query_string="global_tenant=True", headers=headers)
        assert (services.status_code, everyone.status_code) == (status, status)


def test_keystone_admin_needs_an_admin_project(service: MemoryService) -> None:
    headers = {**identity(OTHER_TENANT, "admin"), "X-Is-Admin-Project": "False"}
    result = keystone(service).simulate_get(tenant_path("/stacks"), headers=headers)
    assert result.status_code == 403
    assert "does not match the token's project" in result.json["error"]["message"]


def test_stack_user_may_signal_but_not_list(service: MemoryService) -> None:
    client = keystone(service)
    created = client.simulate_post(
        tenant_path("/stacks"), json=CREATE, headers=identity(TENANT, "member")
    )
    stack = created.headers["location"].split(f"/v1/{TENANT}", 1)[1]
    agent = identity(TENANT, "heat_stack_user")
    signal = client.simulate_post(
        tenant_path(stack + "/resources/server/signal"), json={}, headers=agent
    )
    assert signal.status_code == 200
    assert client.simulate_get(tenant_path("/stacks"), headers=agent).status_code == 403


def test_enforce_new_defaults_false_brings_back_heats_old_defaults(
    service: MemoryService, tmp_path: Path
) -> None:
    custom = identity(TENANT, "operator")
    assert keystone(service).simulate_get(tenant_path("/stacks"), headers=custom).status_code == (
        403
    )
    conf_file = tmp_path / "thermik.conf"
    conf_file.write_text("[oslo_policy]\nenforce_new_defaults = False\n", encoding="utf-8")
    legacy = Policy(policies.build_enforcer(api.load_conf([str(conf_file)])))
    result = keystone(service, legacy).simulate_get(tenant_path("/stacks"), headers=custom)
    assert result.status_code == 200


def test_patch_without_changes_is_update_no_change(tmp_path: Path) -> None:
    rules = '"stacks:update_no_change": "!"\n'
    client = falcon.testing.TestClient(configured(tmp_path, rules))
    stack = client.simulate_post(tenant_path("/stacks"), json=CREATE).headers["location"]
    path = stack.split("falconframework.org", 1)[1]
    assert client.simulate_patch(path, json={"existing": True}).status_code == 403
    changed = client.simulate_patch(path, json={"parameters": {"flavor": "m1.large"}})
    assert changed.status_code == 202


def _sample_path(template: str) -> str:
    return re.sub(r"\{[a-z_]+\}", "x", template)


def every_route() -> list[tuple[str, str]]:
    """Each tenant-scoped (method, path) the API answers."""
    found = []
    for route in all_routes(Deps(MemoryService(), LimitSettings())):
        if not route.tenant_scoped:
            continue
        for method in ("GET", "POST", "PUT", "PATCH", "DELETE"):
            if hasattr(route.responder, f"on_{method.lower()}"):
                found.append((method, _sample_path(route.path)))
    return found


@pytest.fixture(scope="module")
def denying_everything(tmp_path_factory: pytest.TempPathFactory) -> falcon.testing.TestClient:
    denied = "".join(f'"{rule.name}": "!"\n' for rule in policies.list_rules())
    app = configured(tmp_path_factory.mktemp("denied"), denied)
    return falcon.testing.TestClient(app)


@pytest.mark.parametrize(("method", "path"), every_route())
def test_every_route_is_guarded_by_a_registered_rule(
    denying_everything: falcon.testing.TestClient, method: str, path: str
) -> None:
    """With every rule denied, every route answers 403 (an unregistered name would be a 500)."""
    client = denying_everything
    body: Any = {"suspend": None} if method in ("POST", "PUT", "PATCH") else None
    result = client.simulate_request(method, path, json=body)
    assert result.status_code == 403, result.text
    assert result.json["error"]["message"].startswith("You are not authorized to use ")
