"""Service mode's credentials: the caller's token for a request, a Keystone trust for a stack.

Heat's model (``deferred_auth_method = trusts``): when a user creates a stack, the user (the
trustor) delegates roles on the project to the Thermik service user (the trustee, configured in
``[trustee]``) in a trust with impersonation. The trust's id is stored with the stack
(encrypted by the store). Whenever the engine works on the stack, the trustee's password scoped
to that trust gets a token that acts as the user, on the user's project, with the delegated
roles, for as long as the trust exists: after the user's token expired, after an engine
restart or on another engine. Deleting the stack deletes the trust.

A caller with a trust-scoped token is an engine acting for a stack (a remote
``OS::Heat::Stack`` making its child here). Keystone lets such a token neither be rescoped
nor delegate again, so, as Heat's ``create_trust_context`` does for a context that has a
trust already, the child reuses that trust when its trustee is this service's user; the trust
stays the parent's, and deleting the child leaves it alone.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from openstack.connection import Connection

from thermik.clients.credentials import Requester
from thermik.clients.keystone import identity, v3_url
from thermik.clients.pool import ClientPool, Credential
from thermik.conf.settings import KeystoneSettings
from thermik.errors import CloudError, CloudFault, CloudGone, ConfigError, DelegationRefused
from thermik.persistence.values import UserCreds

#: keystoneauth options that scope a token; a trust brings its own scope instead.
_SCOPE_OPTIONS = frozenset(
    {
        "system_scope",
        "domain_id",
        "domain_name",
        "project_id",
        "project_name",
        "project_domain_id",
        "project_domain_name",
        "trust_id",
    }
)
#: Keystone's status for a credential it no longer accepts (a deleted trust's scope).
_UNAUTHORIZED = 401
#: ``UserCreds.username`` of a stack that reuses its creator's trust (the creator deletes it).
REUSED_TRUST = "trust of the creating stack"


class KeystoneTrusts:
    """:class:`~thermik.clients.credentials.CredentialSource` of service mode.

    ``pool`` makes the Keystone calls (mapped to :class:`~thermik.errors.CloudError`, retried,
    counted); ``settings`` names Keystone, the trustee and the roles to delegate.

    Raises:
        ConfigError: ``deferred_auth_method`` is not ``trusts``, Keystone's URL or the
            trustee is not configured.
    """

    def __init__(self, pool: ClientPool, settings: KeystoneSettings) -> None:
        if settings.deferred_auth_method != "trusts":
            raise ConfigError(
                f"deferred_auth_method = {settings.deferred_auth_method} is not supported: "
                "Thermik stores no user passwords; use trusts"
            )
        if not settings.auth_uri:
            raise ConfigError(
                "Keystone's URL is not configured: set [clients_keystone] auth_uri or "
                "[keystone_authtoken] www_authenticate_uri"
            )
        if not settings.trustee.configured:
            raise ConfigError(
                "the Thermik service user that stacks' trusts delegate to is not configured: "
                "set [trustee] username (or user_id), password and user_domain_name"
            )
        self.pool = pool
        self.settings = settings
        self.auth_url = v3_url(settings.auth_uri)
        self._trustee_options: Mapping[str, str] = {
            "auth_url": self.auth_url,
            **dict(settings.trustee.options),
        }
        self._lock = threading.Lock()
        self._trustee_id: str | None = None

    def of_request(self, requester: Requester) -> Credential:
        """The caller's token, scoped to the caller's project (a trust-scoped caller: the
        trustee's password scoped to that trust)."""
        if requester.trust_id:
            return self._trust_scoped(self._reusable(requester))
        if not requester.token:
            raise CloudFault("the request carries no Keystone token to act with")
        return Credential.from_auth(
            "v3token",
            auth_url=self.auth_url,
            token=requester.token,
            project_id=requester.project_id,
        )

    def delegate(self, requester: Requester) -> UserCreds:
        """A new trust from the caller to the trustee, on the caller's project (a trust-scoped
        caller's own trust, reused)."""
        if requester.trust_id:
            return UserCreds(
                id=0,
                username=REUSED_TRUST,
                trust_id=self._reusable(requester),
                trustor_user_id=requester.user_id,
                tenant_id=requester.project_id,
                auth_url=self.auth_url,
                region_name=self.pool.settings.region_name,
            )
        as_caller = self.pool.client(self.of_request(requester), "keystone")
        # Keystone's own account of the token (what the API saw was extended with the roles
        # Keystone's defaults imply, which a cloud may not define).
        token = as_caller.call(_access)
        trustor = str(token.user_id)
        trustee = self.trustee_user_id()
        roles = self.settings.trusts_delegated_roles or tuple(token.role_names)
        if not roles:
            raise DelegationRefused("the request's token carries no roles to delegate to a trust")
        try:
            trust = as_caller.call(
                lambda conn: identity(conn).create_trust(
                    trustor_user_id=trustor,
                    trustee_user_id=trustee,
                    project_id=requester.project_id,
                    roles=[{"name": role} for role in roles],
                    impersonation=True,
                    allow_redelegation=False,
                ),
                idempotent=False,
            )
        except (CloudGone, CloudFault) as error:  # e.g. a role the trustor does not have
            # The caller's request is what Keystone refused, so the API answers 403, not 500.
            raise DelegationRefused(
                f"Keystone refused the trust of roles {', '.join(roles)}: {error.message}"
            ) from error
        return UserCreds(
            id=0,
            trust_id=str(trust.id),
            trustor_user_id=trustor,
            tenant_id=requester.project_id,
            auth_url=self.auth_url,
            region_name=self.pool.settings.region_name,
        )

    def of_stack(self, stored: UserCreds | None) -> Credential:
        """The trustee's password, scoped to the stack's trust."""
        if stored is None or not stored.trust_id:
            reason = (
                "stores a password, which Thermik does not use"
                if stored is not None and stored.password
                else "has no Keystone trust"
            )
            raise CloudFault(f"this stack {reason}: the engine cannot act for its user")
        return self._trust_scoped(stored.trust_id)

    def release(self, stored: UserCreds) -> None:
        """Delete the stack's trust (as the user, through the trust itself), unless the stack
        reused the trust of the stack that created it."""
        trust_id = stored.trust_id
        if not trust_id or stored.username == REUSED_TRUST:
            return
        credential = self._trust_scoped(trust_id)
        try:
            self.pool.client(credential, "keystone").call(
                lambda conn: identity(conn).delete_trust(trust_id, ignore_missing=True)
            )
        except CloudGone:
            pass
        except CloudError as error:
            # A deleted trust (or trustor) cannot scope a token any more: gone already.
            if error.status != _UNAUTHORIZED:
                raise
        finally:
            self.pool.discard(credential)

    def trustee_user_id(self) -> str:
        """The trustee's user id (asked of Keystone once)."""
        with self._lock:
            if self._trustee_id is not None:
                return self._trustee_id
        trustee = Credential.from_auth(self.settings.trustee.auth_type, **self._trustee_options)
        user_id = str(
            self.pool.client(trustee, "keystone").call(lambda conn: conn.current_user_id)
        )
        with self._lock:
            self._trustee_id = user_id
        return user_id

    def _reusable(self, requester: Requester) -> str:
        """The trust of a trust-scoped caller, if this service's user is its trustee.

        Raises:
            DelegationRefused: the trust delegates to another user (another service's engine),
                which this service cannot act as.
        """
        trust_id = str(requester.trust_id)
        if requester.trustee_user_id != self.trustee_user_id():
            raise DelegationRefused(
                "the request's token is scoped to a trust for another user than this "
                "service's: it can be neither rescoped nor delegated again"
            )
        return trust_id

    def _trust_scoped(self, trust_id: str) -> Credential:
        options = {k: v for k, v in self._trustee_options.items() if k not in _SCOPE_OPTIONS}
        return Credential.from_auth(self.settings.trustee.auth_type, trust_id=trust_id, **options)


def _access(conn: Connection) -> Any:
    """The keystoneauth AccessInfo of ``conn``'s token (authenticating first if need be)."""
    auth: Any = conn.session.auth
    return auth.get_access(conn.session)
