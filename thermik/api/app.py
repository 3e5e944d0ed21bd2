"""The WSGI application of the Heat-v1-compatible REST API.

Routes are declared by the collection modules of :mod:`thermik.api.v1` (each has ``routes()``);
this module only assembles them with the error mapping, the body limit, authentication and the
policy every responder enforces (:mod:`thermik.api.policy`).
The engine-served metadata delivery (the builtin backend's capability URLs under
:data:`DELIVERY_PREFIX`) is mounted beside the API, without authentication: the signed URL is
the credential.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from types import ModuleType
from typing import Any

import falcon

from thermik import errors
from thermik.api import admissible, auth, body, faults
from thermik.api.boundary import OrchestrationService
from thermik.api.policy import Policy
from thermik.api.v1 import (
    actions,
    build_info,
    events,
    outputs,
    resource_types,
    resources,
    snapshots,
    software,
    stack_documents,
    stacks,
    validate,
    versions,
)
from thermik.api.v1.endpoint import Deps, Route
from thermik.conf.settings import ApiSettings, LimitSettings

#: The modules declaring the API's routes.
ROUTE_MODULES: tuple[ModuleType, ...] = (
    versions,
    stacks,
    stack_documents,
    outputs,
    actions,
    resources,
    events,
    snapshots,
    validate,
    resource_types,
    software,
    build_info,
)


#: Where the builtin delivery backend's metadata and signal URLs live.
DELIVERY_PREFIX = "/delivery/v1/"


class _WithDelivery:
    """Send ``/delivery/v1/...`` to the delivery app, everything else to the API."""

    def __init__(self, api: auth.WsgiApp, delivery: auth.WsgiApp) -> None:
        self._api = api
        self._delivery = delivery

    def __call__(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        if str(environ.get("PATH_INFO", "")).startswith(DELIVERY_PREFIX):
            return self._delivery(environ, start_response)
        return self._api(environ, start_response)


class BodyLimit:
    """Falcon middleware: 413 for a declared body length over the limit, before reading it."""

    def __init__(self, limit: int) -> None:
        self._limit = limit

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Check ``Content-Length``."""
        body.check_length(req, self._limit)


def all_routes(deps: Deps) -> Iterator[Route]:
    """Every route the API serves."""
    for module in ROUTE_MODULES:
        yield from module.routes(deps)


def build_app(
    service: OrchestrationService,
    contexts: auth.ContextFactory,
    limits: LimitSettings,
    policy: Policy | None = None,
) -> falcon.App[falcon.Request, falcon.Response]:
    """The Falcon application without any WSGI middleware around it (``policy``: the
    defaults in code when None)."""
    app = falcon.App()
    app.add_middleware(admissible.AdmissibleRequest())
    app.add_middleware(auth.ContextMiddleware(contexts))
    app.add_middleware(BodyLimit(limits.max_json_body_size))
    app.req_options.strip_url_path_trailing_slash = True
    app.req_options.auto_parse_qs_csv = False
    faults.install(app)
    deps = Deps(service=service, limits=limits, policy=policy or Policy())
    for route in all_routes(deps):
        app.add_route(route.path, route.responder)
    return app


def make_app(
    service: OrchestrationService,
    settings: ApiSettings,
    *,
    limits: LimitSettings,
    policy: Policy | None = None,
    keystone_conf: Mapping[str, Any] | None = None,
    delivery: auth.WsgiApp | None = None,
) -> auth.WsgiApp:
    """The API as a WSGI callable, authenticated as ``settings.auth_strategy`` says and
    authorized by ``policy`` (built by the composition root from ``[oslo_policy]``; the
    defaults in code when None).

    ``keystone_conf`` configures keystonemiddleware's auth_token when the strategy is
    ``keystone`` (``{"oslo_config_config": conf}`` reads ``[keystone_authtoken]``).
    ``delivery`` (the builtin backend's capability URLs) is served unauthenticated under
    :data:`DELIVERY_PREFIX`.
    """
    app = _authenticated(service, settings, limits, policy or Policy(), keystone_conf)
    return app if delivery is None else _WithDelivery(app, delivery)


def _authenticated(
    service: OrchestrationService,
    settings: ApiSettings,
    limits: LimitSettings,
    policy: Policy,
    keystone_conf: Mapping[str, Any] | None,
) -> auth.WsgiApp:
    if settings.auth_strategy == "noauth":
        return build_app(service, auth.NoAuthContext(settings.static_token), limits, policy)
    if settings.auth_strategy == "keystone":
        app = build_app(service, auth.KeystoneContext(policy), limits, policy)
        return auth.keystone_protected(app, keystone_conf or {}, versions.OPEN_PATHS)
    raise errors.ConfigError(
        f"api.auth_strategy: unknown strategy {settings.auth_strategy!r}, "
        "expected noauth or keystone"
    )
