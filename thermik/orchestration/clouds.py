"""What the orchestration service asks of the cloud layer while it answers a request.

The service checks that the services a template's resource types need are in the caller's
catalog, and its custom constraints (``glance.image``, ``nova.flavor`` ...), with
the caller's own credential, and stores with each new stack what lets the engine act for the
caller later (a Keystone trust, or the local cloud's name). The composition root hands in
:class:`thermik.clients.requests.RequestClouds`; without one (no cloud configured) custom
constraints are not checked and nothing is stored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from thermik.api.boundary import RequestContext
from thermik.persistence.values import UserCreds
from thermik.resources.constraints import CustomValidator


class StackClouds(Protocol):
    """The cloud layer as the orchestration service uses it."""

    def constraints(self, ctx: RequestContext) -> Mapping[str, CustomValidator]:
        """Validators of the cloud's custom constraints, acting as the caller; their
        look-ups are shared by the whole request."""
        ...

    def offers(self, ctx: RequestContext) -> Callable[[str], bool]:
        """Whether the caller's catalog lists a service type (``network``): the answers are
        kept for the request. Raises :class:`~thermik.errors.CloudError` when the catalog
        cannot be read."""
        ...

    def delegate(self, ctx: RequestContext) -> UserCreds | None:
        """What to store with a stack the caller creates (see
        :meth:`thermik.clients.credentials.CredentialSource.delegate`)."""
        ...

    def release(self, stored: UserCreds) -> None:
        """Undo :meth:`delegate` for a stack that was not stored after all."""
        ...
