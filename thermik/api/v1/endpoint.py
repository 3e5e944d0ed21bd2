"""What every v1 collection module shares: its route declarations and the per-request helpers."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import falcon

from thermik.api.auth import context_of, credentials_of
from thermik.api.boundary import OrchestrationService, RequestContext, StackIdentity
from thermik.api.links import Links
from thermik.api.policy import Policy
from thermik.conf.settings import LimitSettings

#: Every tenant-scoped route is below this prefix; the middleware consumes ``tenant_id``.
TENANT_PREFIX = "/v1/{tenant_id}"
#: The canonical stack path below the tenant.
STACK = "/stacks/{stack_name}/{stack_id}"


@dataclasses.dataclass(frozen=True, slots=True)
class Route:
    """One URI template and the Falcon resource answering it (``tenant_scoped``: below
    ``/v1/{tenant_id}``)."""

    template: str
    responder: object
    tenant_scoped: bool = True

    @property
    def path(self) -> str:
        """The full URI template."""
        return TENANT_PREFIX + self.template if self.tenant_scoped else self.template


@dataclasses.dataclass(frozen=True, slots=True)
class Deps:
    """What the responders of the v1 modules are built with."""

    service: OrchestrationService
    limits: LimitSettings
    policy: Policy = dataclasses.field(default_factory=Policy)


class Endpoint:
    """Base of the v1 Falcon resources: holds the service, the size limits and the policy."""

    def __init__(self, deps: Deps) -> None:
        self.service = deps.service
        self.limits = deps.limits
        self.policy = deps.policy

    def authorize(self, req: falcon.Request, rule: str) -> RequestContext:
        """The caller's context, once the policy's ``rule`` allows it (403 otherwise)."""
        self.policy.authorize(rule, credentials_of(req))
        return context_of(req)


def links_for(req: falcon.Request, ctx: RequestContext) -> Links:
    """URL builder rooted at the address the client used (proxy headers honoured)."""
    return Links(root=req.forwarded_prefix + "/v1", tenant=ctx.tenant)


def stack_of(path: Mapping[str, str]) -> StackIdentity:
    """The stack addressed by the ``{stack_name}/{stack_id}`` fields of a canonical path."""
    return StackIdentity(name=path["stack_name"], id=path["stack_id"])


__all__ = ["STACK", "Deps", "Endpoint", "Route", "context_of", "links_for", "stack_of"]
