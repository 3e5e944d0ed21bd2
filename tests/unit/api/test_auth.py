"""Authentication strategies: noauth (optional static token) and keystone."""

from __future__ import annotations

import types

import falcon.testing
import pytest
from keystoneauth1 import access

from tests.unit.api.conftest import OTHER_TENANT, TENANT, StackMaker, tenant_path
from tests.unit.api.memory_service import MemoryService
from thermik import errors
from thermik.api.app import build_app, make_app
from thermik.api.auth import KeystoneContext
from thermik.conf.settings import ApiSettings, LimitSettings


@pytest.fixture
def token_client(service: MemoryService) -> falcon.testing.TestClient:
    settings = ApiSettings(static_token="s3cret")
    return falcon.testing.TestClient(make_app(service, settings, limits=LimitSettings()))


@pytest.mark.parametrize("headers", [{}, {"X-Auth-Token": "wrong"}, {"X-Auth-Token": ""}])
def test_static_token_required(
    token_client: falcon.testing.TestClient, headers: dict[str, str]
) -> None:
    result = token_client.simulate_get(tenant_path("/stacks"), headers=headers)
    assert result.status_code == 401
    assert result.json["error"]["type"] == "HTTPUnauthorized"


def test_static_token_accepted(token_client: falcon.testing.TestClient) -> None:
    result = token_client.simulate_get(tenant_path("/stacks"), headers={"X-Auth-Token": "s3cret"})
    assert result.status_code == 200


def test_versions_need_no_token(token_client: falcon.testing.TestClient) -> None:
    assert token_client.simulate_get("/v1").status_code == 300


def test_noauth_ignores_client_identity_headers(
    client: falcon.testing.TestClient, make_stack: StackMaker
) -> None:
    make_stack("s1")
    spoofed = {"X-Identity-Status": "Confirmed", "X-Roles": "admin", "X-Project-Id": "x"}
    result = client.simulate_get(
        tenant_path("/stacks", OTHER_TENANT), query_string="global_tenant=True", headers=spoofed
    )
    assert result.status_code == 403


def test_unknown_strategy_is_a_config_error(service: MemoryService) -> None:
    with pytest.raises(errors.ConfigError, match=r"api\.auth_strategy: unknown strategy 'ldap'"):
        make_app(service, ApiSettings(auth_strategy="ldap"), limits=LimitSettings())


# keystone: the headers keystonemiddleware sets after validating a token.


@pytest.fixture
def keystone_client(service: MemoryService) -> falcon.testing.TestClient:
    return falcon.testing.TestClient(build_app(service, KeystoneContext(), LimitSettings()))


def identity(project: str, roles: str = "member") -> dict[str, str]:
    return {
        "X-Identity-Status": "Confirmed",
        "X-Project-Id": project,
        "X-User-Id": "u1",
        "X-Roles": roles,
        "X-Auth-Token": "tok",
    }


def test_keystone_identity_of_the_tenant(keystone_client: falcon.testing.TestClient) -> None:
    result = keystone_client.simulate_get(tenant_path("/stacks"), headers=identity(TENANT))
    assert result.status_code == 200


def test_keystone_invalid_token_is_401(keystone_client: falcon.testing.TestClient) -> None:
    headers = {**identity(TENANT), "X-Identity-Status": "Invalid"}
    assert keystone_client.simulate_get(tenant_path("/stacks"), headers=headers).status_code == 401


def test_keystone_other_tenant_is_403(keystone_client: falcon.testing.TestClient) -> None:
    result = keystone_client.simulate_get(tenant_path("/stacks"), headers=identity(OTHER_TENANT))
    assert result.status_code == 403
    assert result.json["error"]["message"] == "Tenant 'tenant1' does not match the token's project"


def test_keystone_admin_may_use_any_tenant(
    keystone_client: falcon.testing.TestClient, service: MemoryService
) -> None:
    admin = identity(OTHER_TENANT, roles="reader, admin")
    body = {"stack_name": "s", "template": {"heat_template_version": "2018-08-31"}}
    created = keystone_client.simulate_post(tenant_path("/stacks"), json=body, headers=admin)
    assert created.status_code == 201
    everything = keystone_client.simulate_get(
        tenant_path("/stacks", OTHER_TENANT), query_string="global_tenant=True", headers=admin
    )
    (stack,) = everything.json["stacks"]
    assert stack["project"] == TENANT
    assert f"/v1/{TENANT}/stacks/s/" in stack["links"][0]["href"]
    services = keystone_client.simulate_get(tenant_path("/services"), headers=admin)
    assert services.json["services"][0]["binary"] == "thermik-engine"


@pytest.mark.filterwarnings("ignore:'cgi' is deprecated:DeprecationWarning")
def test_keystone_strategy_wraps_auth_token(service: MemoryService) -> None:
    conf = {"www_authenticate_uri": "http://127.0.0.1:9/identity", "delay_auth_decision": False}
    app = make_app(
        service, ApiSettings(auth_strategy="keystone"), limits=LimitSettings(), keystone_conf=conf
    )
    client = falcon.testing.TestClient(app)
    result = client.simulate_get(tenant_path("/stacks"))
    assert result.status_code == 401
    assert "127.0.0.1:9/identity" in result.headers["www-authenticate"]
    assert client.simulate_get("/v1").status_code == 300
    assert client.simulate_get("/").status_code == 300


def test_keystone_context_has_the_user_id_and_name() -> None:
    headers = {**identity(TENANT), "X-User-Name": "demo"}
    req = falcon.testing.create_req(path="/", headers=headers)
    context = KeystoneContext()(req, TENANT, "req-1").context
    # The id acts (trusts, cloud calls), the name is what Heat shows as a stack's owner.
    assert (context.user, context.user_name) == ("u1", "demo")


def token_access(**extra: object) -> access.AccessInfoV3:
    """A v3 token's access as keystoneauth reads a token body."""
    token = {"user": {"id": "u1"}, "project": {"id": TENANT}, "methods": ["password"], **extra}
    return access.create(body={"token": token})


def test_keystone_context_names_the_trust_of_a_trust_scoped_token() -> None:
    # What auth_token leaves in the environ: its plugin, whose ``user`` is the token's access.
    trust = {"id": "t1", "trustee_user": {"id": "svc"}, "trustor_user": {"id": "u1"}}
    req = falcon.testing.create_req(path="/", headers=identity(TENANT))
    req.env["keystone.token_auth"] = types.SimpleNamespace(
        user=token_access(**{"OS-TRUST:trust": trust})
    )
    context = KeystoneContext()(req, TENANT, "req-1").context
    assert (context.trust_id, context.trustee_user_id) == ("t1", "svc")

    req.env["keystone.token_auth"] = types.SimpleNamespace(user=token_access())
    context = KeystoneContext()(req, TENANT, "req-2").context
    assert (context.trust_id, context.trustee_user_id) == (None, None)
