"""Service mode's credentials as far as they are decided without Keystone: configuration
refused with its reason, the credentials a request and a stack act with."""

from __future__ import annotations

import dataclasses

import pytest

from thermik.clients import ClientPool
from thermik.clients.credentials import Requester
from thermik.clients.keystone import v3_url
from thermik.clients.stack_users import StackDomainUsers, generate_password, project_name
from thermik.clients.trusts import KeystoneTrusts
from thermik.conf.settings import (
    ClientSettings,
    KeystoneSettings,
    StackDomainSettings,
    TrusteeSettings,
)
from thermik.errors import CloudFault, ConfigError
from thermik.persistence.values import UserCreds

TRUSTEE = TrusteeSettings(
    "password",
    (
        ("username", "thermik"),
        ("password", "pw"),
        ("user_domain_name", "Default"),
        ("project_name", "service"),
        ("project_domain_name", "Default"),
    ),
)
SETTINGS = KeystoneSettings(auth_uri="http://keystone.test:5000", trustee=TRUSTEE)


@pytest.fixture
def trusts() -> KeystoneTrusts:
    return KeystoneTrusts(ClientPool(ClientSettings()), SETTINGS)


def test_v3_url() -> None:
    assert v3_url("http://k:5000") == "http://k:5000/v3"
    assert v3_url("http://k:5000/") == "http://k:5000/v3"
    assert v3_url("http://k/identity/v3/") == "http://k/identity/v3"


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        (dataclasses.replace(SETTINGS, deferred_auth_method="password"), "is not supported"),
        (dataclasses.replace(SETTINGS, auth_uri=None), "Keystone's URL is not configured"),
        (dataclasses.replace(SETTINGS, trustee=TrusteeSettings()), "set [trustee] username"),
    ],
)
def test_configuration_is_refused_with_its_reason(settings: KeystoneSettings, reason: str) -> None:
    with pytest.raises(ConfigError) as raised:
        KeystoneTrusts(ClientPool(ClientSettings()), settings)
    assert reason in str(raised.value)


def test_a_request_acts_with_its_token_on_its_project(trusts: KeystoneTrusts) -> None:
    credential = trusts.of_request(Requester(project_id="p1", user_id="u1", token="tok-1"))
    assert credential.auth_type == "v3token"
    assert dict(credential.auth) == {
        "auth_url": "http://keystone.test:5000/v3",
        "token": "tok-1",
        "project_id": "p1",
    }
    assert "tok-1" not in repr(credential)
    with pytest.raises(CloudFault, match="no Keystone token"):
        trusts.of_request(Requester(project_id="p1"))


def test_a_stack_acts_with_the_trustee_scoped_to_its_trust(trusts: KeystoneTrusts) -> None:
    credential = trusts.of_stack(UserCreds(id=1, trust_id="t1", trustor_user_id="u1"))
    # The trust scopes the token: the trustee's own project would conflict with it.
    assert dict(credential.auth) == {
        "auth_url": "http://keystone.test:5000/v3",
        "username": "thermik",
        "password": "pw",
        "user_domain_name": "Default",
        "trust_id": "t1",
    }


@pytest.mark.parametrize(
    ("stored", "reason"),
    [
        (None, "has no Keystone trust"),
        (UserCreds(id=1, username="u", password="p"), "stores a password"),
    ],
)
def test_a_stack_without_a_trust_cannot_be_acted_for(
    trusts: KeystoneTrusts, stored: UserCreds | None, reason: str
) -> None:
    with pytest.raises(CloudFault, match=reason):
        trusts.of_stack(stored)


def test_releasing_nothing_delegated_calls_nobody(trusts: KeystoneTrusts) -> None:
    trusts.release(UserCreds(id=1))
    assert trusts.pool.counter.total() == 0


def test_stack_users_need_a_domain_and_its_admin() -> None:
    with pytest.raises(ConfigError, match="stack users need a stack user domain"):
        StackDomainUsers(ClientPool(ClientSettings()), SETTINGS)
    domain = StackDomainSettings(domain_name="heat", admin="a", admin_password="pw")
    users = StackDomainUsers(
        ClientPool(ClientSettings()), dataclasses.replace(SETTINGS, stack_domain=domain)
    )
    assert users.auth_url == "http://keystone.test:5000/v3"
    assert dict(users.admin.auth)["domain_name"] == "heat"


def test_names_and_passwords() -> None:
    assert project_name("s" * 100) == "thermik-" + "s" * 56
    passwords = {generate_password() for _ in range(50)}
    assert len(passwords) == 50
    assert all(len(p) == 32 for p in passwords)
