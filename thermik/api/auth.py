"""Who is calling: a :class:`RequestContext` for every tenant-scoped request.

Two strategies (``[api] auth_strategy``):

* ``noauth`` trusts the tenant in the URL (``/v1/<tenant>/...``) and makes the caller a member
  of it; with ``static_token`` set, every request must carry it in ``X-Auth-Token`` (401
  otherwise).
* ``keystone`` puts keystonemiddleware's ``auth_token`` in front of the app; the identity headers
  it sets are trusted (it strips client-sent ones), and the tenant in the URL must be the token's
  project unless the caller is an admin by the ``context_is_admin`` rule (403).

What the caller may then do is the policy's decision (:mod:`thermik.api.policy`); tenant
isolation itself is the service's job: it scopes every lookup by ``ctx.tenant``.
"""

from __future__ import annotations

import dataclasses
import hmac
import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

import falcon
from oslo_context import context as oslo_context

from thermik import errors
from thermik.api.boundary import RequestContext
from thermik.api.policy import (
    NOAUTH_ROLES,
    Credentials,
    Policy,
    noauth_credentials,
    with_implied_roles,
)

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

REQUEST_ID_HEADER = "x-openstack-request-id"


@dataclasses.dataclass(frozen=True, slots=True)
class Caller:
    """Who is calling: the context the service scopes by, and what the policy checks."""

    context: RequestContext
    credentials: Credentials


class ContextFactory(Protocol):
    """Builds the caller for a request addressed to ``tenant`` (or raises 401/403)."""

    def __call__(self, req: falcon.Request, tenant: str, request_id: str) -> Caller:
        """The caller, or Unauthorized/Forbidden."""


class NoAuthContext:
    """Trust the tenant in the URL; optionally require one static token."""

    def __init__(self, static_token: str | None = None) -> None:
        self._static_token = static_token

    def __call__(self, req: falcon.Request, tenant: str, request_id: str) -> Caller:
        token = req.get_header("X-Auth-Token")
        if self._static_token is not None and not (
            token is not None
            and hmac.compare_digest(token.encode("utf-8"), self._static_token.encode("utf-8"))
        ):
            raise errors.Unauthorized("Authentication required: missing or wrong X-Auth-Token")
        user = req.get_header("X-Auth-User")
        context = RequestContext(
            tenant=tenant, user=user, roles=NOAUTH_ROLES, token=token, request_id=request_id
        )
        return Caller(context, noauth_credentials(tenant, user))


class KeystoneContext:
    """Read the identity keystonemiddleware established; the URL's tenant must match it.

    Who is an admin is the policy's ``context_is_admin`` rule; an admin's requests are checked
    against the token's own project, as Heat does, so that it may address any tenant.
    """

    def __init__(self, policy: Policy | None = None) -> None:
        self._policy = policy or Policy()

    def __call__(self, req: falcon.Request, tenant: str, request_id: str) -> Caller:
        if req.get_header("X-Identity-Status") != "Confirmed":
            raise errors.Unauthorized("Authentication required")
        # A plain dict: oslo.context's would keep its own values over the ones set below.
        caller = oslo_context.RequestContext.from_environ(req.env)
        values = dict(caller.to_policy_values().items())
        values["roles"] = list(with_implied_roles(values.get("roles") or []))
        is_admin = self._policy.is_admin(values)
        values["is_admin"] = is_admin
        project = values.get("project_id")
        if project != tenant and not is_admin:
            raise errors.Forbidden(f"Tenant {tenant!r} does not match the token's project")
        context = RequestContext(
            tenant=tenant,
            user=values.get("user_id"),
            roles=tuple(values["roles"]),
            is_admin=is_admin,
            token=req.get_header("X-Auth-Token"),
            request_id=request_id,
            user_name=caller.user_name,
            **_trust_of(req.env),
        )
        target = project if is_admin and project else tenant
        return Caller(context, Credentials(values=values, project_id=target))


def _trust_of(environ: Mapping[str, Any]) -> dict[str, str | None]:
    """The trust of a trust-scoped token (``trust_id``, ``trustee_user_id``), from what
    auth_token validated; an ordinary token's are ``None``."""
    plugin = environ.get("keystone.token_auth")
    access = getattr(plugin, "user", None)
    if access is None or not getattr(access, "trust_scoped", False):
        return {"trust_id": None, "trustee_user_id": None}
    return {"trust_id": access.trust_id, "trustee_user_id": access.trustee_user_id}


class ContextMiddleware:
    """Falcon middleware: consumes the ``tenant_id`` route field and stores the context."""

    def __init__(self, factory: ContextFactory) -> None:
        self._factory = factory

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Give every request an id, echoed in ``x-openstack-request-id``."""
        req.context.request_id = "req-" + str(uuid.uuid4())
        resp.set_header(REQUEST_ID_HEADER, req.context.request_id)

    def process_resource(
        self, req: falcon.Request, resp: falcon.Response, resource: object, params: dict[str, Any]
    ) -> None:
        """Build the caller's context for tenant-scoped routes."""
        tenant = params.pop("tenant_id", None)
        if resource is not None and tenant is not None:
            caller = self._factory(req, tenant, req.context.request_id)
            req.context.thermik = caller.context
            req.context.credentials = caller.credentials


def context_of(req: falcon.Request) -> RequestContext:
    """The caller's context stored by :class:`ContextMiddleware`."""
    ctx = getattr(req.context, "thermik", None)
    if not isinstance(ctx, RequestContext):
        raise errors.Unauthorized("No tenant in the request path")
    return ctx


def credentials_of(req: falcon.Request) -> Credentials:
    """What the policy checks for the caller of ``req`` (stored by :class:`ContextMiddleware`)."""
    credentials = getattr(req.context, "credentials", None)
    if not isinstance(credentials, Credentials):
        raise errors.Unauthorized("No tenant in the request path")
    return credentials


class _UnauthenticatedPaths:
    """Send the version documents around the auth middleware, as Heat's pipeline does."""

    def __init__(self, protected: WsgiApp, open_app: WsgiApp, paths: frozenset[str]) -> None:
        self._protected = protected
        self._open = open_app
        self._paths = paths

    def __call__(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "") or "/"
        app = self._open if path in self._paths else self._protected
        return app(environ, start_response)


def keystone_protected(
    app: WsgiApp, keystone_conf: Mapping[str, Any], open_paths: frozenset[str]
) -> WsgiApp:
    """Wrap ``app`` in keystonemiddleware's auth_token, leaving ``open_paths`` unauthenticated.

    ``keystone_conf`` is auth_token's configuration: option values, or
    ``{"oslo_config_config": conf}`` to read ``[keystone_authtoken]`` from the service's config.
    """
    # Imported here: keystonemiddleware is heavy and only needed with this strategy.
    from keystonemiddleware import auth_token  # noqa: PLC0415

    protected = auth_token.AuthProtocol(app, dict(keystone_conf))
    return _UnauthenticatedPaths(protected, app, open_paths)
