"""The identity options: Keystone's URL, the trustee, the stack user domain, as Heat reads them."""

from __future__ import annotations

from pathlib import Path

import pytest

from thermik.conf import settings
from thermik.errors import ConfigError


def load(tmp_path: Path, text: str) -> settings.KeystoneSettings:
    conf_file = tmp_path / "thermik.conf"
    conf_file.write_text(text)
    return settings.load(config_files=[str(conf_file)]).keystone


TRUSTEE = """
[trustee]
auth_type = password
auth_url = http://keystone.test:5000
username = thermik
password = secret
user_domain_name = Default
"""


def test_defaults_are_heats(tmp_path: Path) -> None:
    keystone = load(tmp_path, "")
    assert keystone.deferred_auth_method == "trusts"
    assert keystone.trusts_delegated_roles == ()
    assert keystone.stack_domain.user_role == "heat_stack_user"
    assert not keystone.stack_domain.configured
    assert not keystone.trustee.configured
    assert keystone.auth_uri is None


def test_trustee_options_are_read_and_hidden(tmp_path: Path) -> None:
    keystone = load(tmp_path, TRUSTEE + "[DEFAULT]\ntrusts_delegated_roles = member,reader\n")
    assert keystone.trustee.configured
    assert dict(keystone.trustee.options) == {
        "auth_url": "http://keystone.test:5000",
        "username": "thermik",
        "password": "secret",
        "user_domain_name": "Default",
    }
    assert "secret" not in repr(keystone)
    assert keystone.trusts_delegated_roles == ("member", "reader")
    # Without another Keystone URL, the trustee's.
    assert keystone.auth_uri == "http://keystone.test:5000"


@pytest.mark.filterwarnings("ignore:'cgi' is deprecated:DeprecationWarning")
def test_keystones_url_prefers_clients_keystone_then_authtoken(tmp_path: Path) -> None:
    authtoken = "[api]\nauth_strategy = keystone\n[keystone_authtoken]\n"
    authtoken += "www_authenticate_uri = http://public.test:5000/v3\n"
    assert load(tmp_path, TRUSTEE + authtoken).auth_uri == "http://public.test:5000/v3"
    clients = "[clients_keystone]\nauth_uri = http://internal.test:5000\n"
    assert load(tmp_path, TRUSTEE + authtoken + clients).auth_uri == "http://internal.test:5000"


def test_a_stack_domain_without_its_admin_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="without stack_domain_admin and"):
        load(tmp_path, "[DEFAULT]\nstack_user_domain_name = heat\nstack_domain_admin = a\n")
    domain = load(
        tmp_path,
        "[DEFAULT]\nstack_user_domain_id = d1\nstack_domain_admin = a\n"
        "stack_domain_admin_password = pw\nheat_stack_user_role = agents\n",
    ).stack_domain
    assert (domain.domain_id, domain.admin, domain.user_role) == ("d1", "a", "agents")
    assert domain.configured
    assert "pw" not in repr(domain)


def test_a_trustee_plugin_trusts_cannot_scope_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="auth_type = v3applicationcredential cannot"):
        load(tmp_path, "[trustee]\nauth_type = v3applicationcredential\n")
