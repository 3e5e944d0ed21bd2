"""The cloud layer as the orchestration service uses it (:class:`StackClouds`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from thermik.api.boundary import RequestContext
from thermik.clients.access import CloudAccesses, constraint_validators
from thermik.clients.credentials import Requester
from thermik.persistence.values import UserCreds
from thermik.resources.constraints import CustomValidator


def requester_of(ctx: RequestContext) -> Requester:
    """The cloud's view of a request's caller."""
    return Requester(
        project_id=ctx.tenant,
        user_id=ctx.user,
        token=ctx.token,
        roles=ctx.roles,
        trust_id=ctx.trust_id,
        trustee_user_id=ctx.trustee_user_id,
    )


class RequestClouds:
    """Custom constraints and delegations of requests, over the engine's accesses."""

    def __init__(self, accesses: CloudAccesses) -> None:
        self.accesses = accesses

    def constraints(self, ctx: RequestContext) -> Mapping[str, CustomValidator]:
        return constraint_validators(self.accesses.for_request(requester_of(ctx)))

    def offers(self, ctx: RequestContext) -> Callable[[str], bool]:
        return self.accesses.for_request(requester_of(ctx)).offers

    def delegate(self, ctx: RequestContext) -> UserCreds | None:
        return self.accesses.source.delegate(requester_of(ctx))

    def release(self, stored: UserCreds) -> None:
        self.accesses.source.release(stored)
