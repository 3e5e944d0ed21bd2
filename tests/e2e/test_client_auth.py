"""heatclient built every keystone-less way tools build it, and as a Keystone admin.

The real service serves all of them; the admin case puts, in front of the keystone strategy's
app, what keystonemiddleware would: identity headers derived from the token (and client-sent
ones stripped).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest
from heatclient import client as heat_client
from heatclient import exc as heat_exc
from keystoneauth1 import http_basic, noauth, token_endpoint
from keystoneauth1 import session as ks_session

from tests.e2e.support import TEMPLATE, settled
from tests.loopback import serve
from thermik.api.app import build_app
from thermik.api.auth import KeystoneContext, WsgiApp
from thermik.conf.settings import LimitSettings
from thermik.orchestration import Orchestrator


def by_token(endpoint: str) -> Any:
    return heat_client.Client("1", endpoint=endpoint, token="tok")


def by_user_and_key(endpoint: str) -> Any:
    return heat_client.Client("1", endpoint=endpoint, username="u", password="p")


def by_noauth_session(endpoint: str) -> Any:
    session = ks_session.Session(auth=noauth.NoAuth(endpoint=endpoint))
    return heat_client.Client("1", session=session)


def by_noauth_endpoint_override(endpoint: str) -> Any:
    session = ks_session.Session(auth=noauth.NoAuth())
    return heat_client.Client("1", session=session, endpoint=endpoint)


def by_admin_token_session(endpoint: str) -> Any:
    plugin = token_endpoint.Token(endpoint, "tok")
    return heat_client.Client("1", session=ks_session.Session(auth=plugin))


def by_http_basic_session(endpoint: str) -> Any:
    plugin = http_basic.HTTPBasicAuth(endpoint=endpoint, username="u", password="p")
    return heat_client.Client("1", session=ks_session.Session(auth=plugin))


@pytest.mark.parametrize(
    "build",
    [
        by_token,
        by_user_and_key,
        by_noauth_session,
        by_noauth_endpoint_override,
        by_admin_token_session,
        by_http_basic_session,
    ],
)
def test_keystoneless_clients(
    build: Callable[[str], Any], shared_root: str, own_tenant: str
) -> None:
    heat = build(f"{shared_root}/v1/{own_tenant}")
    stack_id = heat.stacks.create(stack_name="s", template=TEMPLATE)["stack"]["id"]
    stack = settled(heat, "s")
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    assert [s.id for s in heat.stacks.list()] == [stack_id]
    heat.actions.check("s")
    assert settled(heat, stack_id).stack_status == "CHECK_COMPLETE"
    heat.stacks.delete("s")
    assert settled(heat, stack_id).stack_status == "DELETE_COMPLETE"
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.stacks.get("s")


#: token -> (project, roles), as Keystone would validate them.
TOKENS = {"admin-token": ("ops", "admin,member"), "member-token": ("ops", "member")}
IDENTITY_HEADERS = (
    "HTTP_X_IDENTITY_STATUS",
    "HTTP_X_PROJECT_ID",
    "HTTP_X_USER_ID",
    "HTTP_X_ROLES",
)


def fake_auth_token(app: WsgiApp) -> WsgiApp:
    """What keystonemiddleware's auth_token does for the app, minus asking Keystone."""

    def middleware(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        for header in IDENTITY_HEADERS:
            environ.pop(header, None)
        known = TOKENS.get(environ.get("HTTP_X_AUTH_TOKEN", ""))
        environ["HTTP_X_IDENTITY_STATUS"] = "Invalid" if known is None else "Confirmed"
        if known is not None:
            environ["HTTP_X_PROJECT_ID"], environ["HTTP_X_ROLES"] = known
            environ["HTTP_X_USER_ID"] = "user-1"
        return app(environ, start_response)

    return middleware


@pytest.fixture
def keystone_root(shared_service: Orchestrator) -> Iterator[str]:
    app = build_app(shared_service, KeystoneContext(), LimitSettings())
    with serve(fake_auth_token(app)) as root:
        yield root


def test_services_and_global_listing_for_admins(keystone_root: str) -> None:
    admin = heat_client.Client("1", endpoint=f"{keystone_root}/v1/ops", token="admin-token")
    (engine,) = admin.services.list()
    assert (engine.binary, engine.topic, engine.status) == ("thermik-engine", "engine", "up")
    member = heat_client.Client("1", endpoint=f"{keystone_root}/v1/ops", token="member-token")
    with pytest.raises(heat_exc.HTTPForbidden, match="administrators"):
        member.services.list()
    stack_id = member.stacks.create(stack_name="mine", template=TEMPLATE)["stack"]["id"]
    assert settled(member, stack_id).stack_status == "CREATE_COMPLETE"
    everywhere = admin.stacks.list(global_tenant=True)
    assert stack_id in [s.id for s in everywhere]
    with pytest.raises(heat_exc.HTTPForbidden):
        list(member.stacks.list(global_tenant=True))
    other = heat_client.Client("1", endpoint=f"{keystone_root}/v1/elsewhere", token="member-token")
    with pytest.raises(heat_exc.HTTPForbidden, match="does not match"):
        list(other.stacks.list())
    stranger = heat_client.Client("1", endpoint=f"{keystone_root}/v1/ops", token="forged")
    with pytest.raises(heat_exc.HTTPUnauthorized):
        list(stranger.stacks.list())
