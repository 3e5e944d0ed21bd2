"""Keystone set-ups the identity tests share: a trustee of their own, the demo user's token.

Everything made here has a name unique to the test run (``ks-<hex>-...``) and is deleted by
the context manager that made it, so runs in parallel do not collide and leave nothing behind.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from typing import Any

from openstack.connection import Connection

from tests.functional.cloud.cloud import CloudEnv
from thermik.clients.credentials import Requester
from thermik.conf.settings import KeystoneSettings, StackDomainSettings, TrusteeSettings


def unique(what: str) -> str:
    """A name no other run uses."""
    return f"ks-{uuid.uuid4().hex[:10]}-{what}"


@contextlib.contextmanager
def service_user(cloud_env: CloudEnv) -> Iterator[TrusteeSettings]:
    """A user of its own in the default domain, standing for Thermik's service user."""
    admin = cloud_env.connect(admin=True)
    name, password = unique("trustee"), uuid.uuid4().hex
    user = admin.identity.create_user(name=name, password=password, domain_id="default")
    try:
        yield TrusteeSettings(
            "password",
            (
                ("auth_url", cloud_env.auth_url),
                ("username", name),
                ("password", password),
                ("user_domain_name", "Default"),
            ),
        )
    finally:
        admin.identity.delete_user(user, ignore_missing=True)
        admin.close()


def keystone_settings(
    cloud_env: CloudEnv,
    trustee: TrusteeSettings | None = None,
    domain: StackDomainSettings | None = None,
    roles: tuple[str, ...] = (),
) -> KeystoneSettings:
    """Settings naming the cloud's Keystone, with ``trustee`` and ``domain`` when given."""
    return KeystoneSettings(
        auth_uri=cloud_env.auth_url,
        trusts_delegated_roles=roles,
        trustee=trustee or TrusteeSettings(),
        stack_domain=domain or StackDomainSettings(),
    )


def requester_of(conn: Connection) -> Requester:
    """The caller as keystonemiddleware describes a request made with ``conn``'s token."""
    auth: Any = conn.session.auth
    access = auth.get_access(conn.session)
    return Requester(
        project_id=access.project_id,
        user_id=access.user_id,
        token=access.auth_token,
        roles=tuple(access.role_names),
    )


def revoke(cloud_env: CloudEnv, admin: Connection, token: str) -> None:
    """Revoke ``token`` (as a user's logout would)."""
    response = admin.session.delete(
        f"{cloud_env.auth_url.rstrip('/')}/auth/tokens", headers={"X-Subject-Token": token}
    )
    assert response.status_code == 204, response.text
