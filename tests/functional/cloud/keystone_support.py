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
from thermik.clients import ClientPool, Credential
from thermik.clients.credentials import Requester
from thermik.clients.stack_users import setup_domain
from thermik.conf.settings import (
    ClientSettings,
    KeystoneSettings,
    StackDomainSettings,
    TrusteeSettings,
)


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


@contextlib.contextmanager
def stack_domain(cloud_env: CloudEnv) -> Iterator[StackDomainSettings]:
    """A stack user domain of its own with its administrator, made by ``setup_domain`` as
    ``thermik-manage keystone setup-domain`` makes it; deleted with all it holds."""
    pool = ClientPool(ClientSettings(retry_limit=1))
    admin = cloud_env.connect(admin=True)
    name = unique("domain")
    try:
        as_admin = pool.client(
            Credential.from_cloud(cloud_env.admin_cloud, str(cloud_env.config_file)), "keystone"
        )
        done = setup_domain(as_admin, name, "ks-admin", None)
        assert done.password
        yield StackDomainSettings(domain_name=name, admin="ks-admin", admin_password=done.password)
    finally:
        delete_domain(admin, name)
        admin.close()
        pool.close()


def delete_domain(admin: Connection, name: str) -> None:
    """Delete domain ``name`` with its users and projects (none is fine)."""
    domain = admin.identity.find_domain(name)
    if domain is None:
        return
    for user in admin.identity.users(domain_id=domain.id):
        admin.identity.delete_user(user)
    for project in admin.identity.projects(domain_id=domain.id):
        admin.identity.delete_project(project)
    admin.identity.update_domain(domain, is_enabled=False)
    admin.identity.delete_domain(domain)
