"""Who the engine acts as on the cloud: for a request, and for each stack afterwards.

A :class:`CredentialSource` answers three moments of a stack's life:

* a request arrives (validate, create, update): :meth:`CredentialSource.of_request` is the
  credential its custom constraints are checked with (the caller's own);
* a stack is created: :meth:`CredentialSource.delegate` is what is stored with it so that the
  engine can act for the user later, after the user's token expired and after an engine
  restart (a Keystone trust in service mode, the ``clouds.yaml`` cloud's name in local mode);
* the engine works on the stack: :meth:`CredentialSource.of_stack` turns what was stored into
  a credential; when the stack is gone :meth:`CredentialSource.release` undoes the delegation.

:class:`LocalCloud` is local mode (``thermik --os-cloud NAME``). Service mode's trusts are
:mod:`thermik.clients.trusts`.
"""

from __future__ import annotations

import dataclasses
from typing import Protocol

from thermik.clients.pool import Credential
from thermik.errors import CloudFault
from thermik.persistence.values import UserCreds

#: ``UserCreds.auth_url`` of a stack created in local mode: ``username`` names the cloud.
CLOUDS_YAML = "clouds.yaml"


@dataclasses.dataclass(frozen=True, slots=True)
class Requester:
    """The caller of a request, as far as the cloud cares."""

    project_id: str
    user_id: str | None = None
    token: str | None = None
    roles: tuple[str, ...] = ()
    #: The trust a trust-scoped token acts through, and its trustee (see
    #: :class:`~thermik.api.boundary.RequestContext`).
    trust_id: str | None = None
    trustee_user_id: str | None = None


class CredentialSource(Protocol):
    """Credentials of requests and of stacks (see the module docstring)."""

    def of_request(self, requester: Requester) -> Credential:
        """The caller's own credential, for look-ups made while the request is answered."""
        ...

    def delegate(self, requester: Requester) -> UserCreds | None:
        """What to store with a stack the caller creates (``id`` is ignored); ``None``: nothing.

        Raises:
            CloudError: the delegation was refused (the message says why).
        """
        ...

    def of_stack(self, stored: UserCreds | None) -> Credential:
        """The credential the engine acts with for a stack that stored ``stored``.

        Raises:
            CloudError: the stored delegation cannot be used.
        """
        ...

    def release(self, stored: UserCreds) -> None:
        """Undo the delegation of a deleted stack (delete its trust); gone already is fine."""
        ...


class LocalCloud:
    """Local mode: every request and stack acts as one cloud of a ``clouds.yaml``.

    A stack records the cloud's name, so that it is updated and deleted on the cloud it was
    created on whatever ``--os-cloud`` a later command names.
    """

    def __init__(self, cloud: str, config_file: str | None = None) -> None:
        self.cloud = cloud
        self.config_file = config_file

    def of_request(self, requester: Requester) -> Credential:
        return Credential.from_cloud(self.cloud, self.config_file)

    def delegate(self, requester: Requester) -> UserCreds | None:
        return UserCreds(id=0, username=self.cloud, auth_url=CLOUDS_YAML)

    def of_stack(self, stored: UserCreds | None) -> Credential:
        if stored is None or stored.auth_url != CLOUDS_YAML or not stored.username:
            if stored is not None and stored.trust_id:
                raise CloudFault(
                    "this stack was created by a Thermik service with a Keystone trust; "
                    "act on it through that service"
                )
            return Credential.from_cloud(self.cloud, self.config_file)
        return Credential.from_cloud(stored.username, self.config_file)

    def release(self, stored: UserCreds) -> None:
        """Nothing was delegated."""
