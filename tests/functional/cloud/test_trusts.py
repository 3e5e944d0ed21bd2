"""Service mode's credentials against the real Keystone of the loopback cloud.

The demo user delegates to a service user of the test's own in a trust; the trust-scoped
credential acts as demo on demo's project after demo's token was revoked; release deletes the
trust, and releasing it again is fine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
from openstack import exceptions as sdk

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.keystone_support import (
    keystone_settings,
    requester_of,
    revoke,
    service_user,
)
from thermik.clients import ClientPool
from thermik.clients.credentials import Requester
from thermik.clients.trusts import KeystoneTrusts
from thermik.conf.settings import ClientSettings, TrusteeSettings
from thermik.errors import CloudError, DelegationRefused

pytestmark = pytest.mark.functional


@pytest.fixture(scope="module")
def trustee(cloud_env: CloudEnv) -> Iterator[TrusteeSettings]:
    with service_user(cloud_env) as settings:
        yield settings


@pytest.fixture
def pool() -> Iterator[ClientPool]:
    clients = ClientPool(ClientSettings(retry_limit=1))
    yield clients
    clients.close()


@pytest.fixture
def demo(cloud_env: CloudEnv) -> Requester:
    """The demo user's caller, with a token of its own (revoking it spares other tests)."""
    conn = cloud_env.connect()
    try:
        return requester_of(conn)
    finally:
        conn.close()


def test_a_trust_outlives_the_users_token_and_is_released(
    cloud_env: CloudEnv, trustee: TrusteeSettings, pool: ClientPool, demo: Requester
) -> None:
    trusts = KeystoneTrusts(pool, keystone_settings(cloud_env, trustee))
    stored = trusts.delegate(demo)
    admin = cloud_env.connect(admin=True)
    try:
        assert stored.trust_id
        assert stored.trustor_user_id == demo.user_id
        assert stored.tenant_id == demo.project_id
        trust = admin.identity.get_trust(stored.trust_id)
        assert trust.is_impersonation
        assert trust.trustee_user_id == trusts.trustee_user_id()
        assert {role["name"] for role in trust.roles} == set(demo.roles)

        assert demo.token is not None
        revoke(cloud_env, admin, demo.token)
        # A new engine: nothing but what the store kept.
        later = ClientPool(ClientSettings(retry_limit=1))
        try:
            again = KeystoneTrusts(later, keystone_settings(cloud_env, trustee))
            network = later.client(again.of_stack(stored), "neutron")
            names = network.call(lambda conn: [net.name for net in conn.network.networks()])
            assert cloud_env.public_network in names
            conn = network.connection
            assert (conn.current_user_id, conn.current_project_id) == (
                demo.user_id,
                demo.project_id,
            )
            again.release(stored)
        finally:
            later.close()
        with pytest.raises(sdk.NotFoundException):
            admin.identity.get_trust(stored.trust_id)
        trusts.release(stored)  # gone already
        with pytest.raises(CloudError):
            pool.client(trusts.of_stack(stored), "neutron").call(
                lambda conn: list(conn.network.networks())
            )
    finally:
        admin.identity.delete_trust(stored.trust_id, ignore_missing=True)
        admin.close()


def test_delegated_roles_are_the_configured_subset(
    cloud_env: CloudEnv, trustee: TrusteeSettings, pool: ClientPool, demo: Requester
) -> None:
    trusts = KeystoneTrusts(pool, keystone_settings(cloud_env, trustee, roles=("reader",)))
    stored = trusts.delegate(demo)
    admin = cloud_env.connect(admin=True)
    try:
        assert stored.trust_id
        roles = admin.identity.get_trust(stored.trust_id).roles
        assert [role["name"] for role in roles] == ["reader"]
    finally:
        trusts.release(stored)
        admin.close()


def test_a_role_the_user_lacks_is_refused_with_keystones_reason(
    cloud_env: CloudEnv, trustee: TrusteeSettings, pool: ClientPool, demo: Requester
) -> None:
    trusts = KeystoneTrusts(pool, keystone_settings(cloud_env, trustee, roles=("admin",)))
    with pytest.raises(DelegationRefused) as raised:
        trusts.delegate(demo)
    assert str(raised.value).startswith("Keystone refused the trust of roles admin")
    assert "http" not in str(raised.value)
    assert raised.value.http_status == 403


def test_a_request_acts_with_the_callers_own_token(
    cloud_env: CloudEnv, trustee: TrusteeSettings, pool: ClientPool, demo: Requester
) -> None:
    trusts = KeystoneTrusts(pool, keystone_settings(cloud_env, trustee))
    client = pool.client(trusts.of_request(demo), "neutron")
    names = client.call(lambda conn: [net.name for net in conn.network.networks()])
    assert cloud_env.public_network in names
    assert client.connection.current_user_id == demo.user_id


def test_a_trust_scoped_caller_reuses_its_trust_and_its_release_leaves_it(
    cloud_env: CloudEnv, trustee: TrusteeSettings, pool: ClientPool, demo: Requester
) -> None:
    """An engine's call for a stack (a remote OS::Heat::Stack) carries a trust-scoped token,
    which Keystone lets neither be rescoped nor delegate again: the child reuses the trust."""
    trusts = KeystoneTrusts(pool, keystone_settings(cloud_env, trustee))
    stored = trusts.delegate(demo)
    assert stored.trust_id
    engine = dataclasses.replace(
        demo, trust_id=stored.trust_id, trustee_user_id=trusts.trustee_user_id()
    )
    admin = cloud_env.connect(admin=True)
    try:
        child = trusts.delegate(engine)
        assert (child.trust_id, child.trustor_user_id) == (stored.trust_id, demo.user_id)
        client = pool.client(trusts.of_request(engine), "neutron")
        names = client.call(lambda conn: [net.name for net in conn.network.networks()])
        assert cloud_env.public_network in names
        trusts.release(child)
        assert admin.identity.get_trust(stored.trust_id).id == stored.trust_id
        foreign = dataclasses.replace(engine, trustee_user_id="another-service")
        with pytest.raises(DelegationRefused, match="another user than this service's"):
            trusts.delegate(foreign)
    finally:
        trusts.release(stored)
        admin.close()
