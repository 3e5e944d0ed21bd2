"""The local engine daemon's REST API: its one caller owns every stack of the state directory.

The ``thermik`` CLI reaches the daemon of its state directory through the same Heat v1 API a
remote client uses, on a loopback port, presenting the daemon's random token (kept in the state
directory, readable by its user only). Whoever holds the token can read the state directory's
database anyway, so :class:`OwnerContext` makes them an admin of whatever tenant the URL names,
as the CLI's own engine did; the tenant still scopes every lookup. They call with no Keystone
token, so the engine acts in the cloud with the credentials it was started with.

:func:`with_management` adds the daemon's own methods (``ping``, ``stop``) beside the API, under
:data:`MANAGEMENT_PREFIX`, behind the same token.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import falcon

from thermik import errors
from thermik.api.auth import Caller, WsgiApp
from thermik.api.boundary import RequestContext
from thermik.api.policy import IMPLIED_ROLES, Credentials
from thermik.clients.local_daemon import MANAGEMENT_PREFIX

#: The header carrying the token, as Keystone's tokens are carried.
TOKEN_HEADER = "X-Auth-Token"
#: The header naming the user at the terminal (recorded as the stack's owner).
USER_HEADER = "X-Auth-User"


def token_matches(presented: str | None, token: str) -> bool:
    """Whether ``presented`` is the daemon's token (compared in constant time)."""
    return presented is not None and hmac.compare_digest(presented.encode(), token.encode())


class OwnerContext:
    """The caller of a request bearing the daemon's token: an admin of the URL's tenant."""

    def __init__(self, token: str) -> None:
        self._token = token

    def __call__(self, req: falcon.Request, tenant: str, request_id: str) -> Caller:
        if not token_matches(req.get_header(TOKEN_HEADER), self._token):
            raise errors.Unauthorized("Authentication required: missing or wrong X-Auth-Token")
        user = req.get_header(USER_HEADER)
        context = RequestContext(
            tenant=tenant, user=user, roles=IMPLIED_ROLES, is_admin=True, request_id=request_id
        )
        values = {
            "user_id": user,
            "project_id": tenant,
            "roles": list(IMPLIED_ROLES),
            "is_admin_project": True,
            "is_admin": True,
            "system_scope": None,
            "domain_id": None,
        }
        return Caller(context, Credentials(values=values, project_id=tenant))


def with_management(api: WsgiApp, token: str, methods: Mapping[str, Callable[[], Any]]) -> WsgiApp:
    """``api``, with ``POST /engine/v1/<name>`` calling ``methods[name]`` (its answer as JSON)
    for callers presenting ``token``."""

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = str(environ.get("PATH_INFO", ""))
        if not path.startswith(MANAGEMENT_PREFIX):
            return api(environ, start_response)
        status, body = _manage(environ, path.removeprefix(MANAGEMENT_PREFIX), token, methods)
        payload = json.dumps(body).encode()
        start_response(
            f"{status} {'OK' if status == 200 else 'Refused'}",
            [("Content-Type", "application/json"), ("Content-Length", str(len(payload)))],
        )
        return [payload]

    return app


def _manage(
    environ: Mapping[str, Any],
    name: str,
    token: str,
    methods: Mapping[str, Callable[[], Any]],
) -> tuple[int, Any]:
    if not token_matches(environ.get("HTTP_X_AUTH_TOKEN"), token):
        return 401, {"message": "missing or wrong X-Auth-Token"}
    method = methods.get(name)
    if environ.get("REQUEST_METHOD") != "POST" or method is None:
        return 404, {"message": f"no such method: {name}"}
    return 200, method()
