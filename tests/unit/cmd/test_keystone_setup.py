"""``thermik-manage keystone setup-domain`` without a cloud: who it acts as, what it prints."""

from __future__ import annotations

import pytest

from thermik.clients.stack_users import DomainSetup
from thermik.cmd import keystone_setup
from thermik.errors import ConfigError


def test_the_admin_is_a_cloud_or_the_os_variables() -> None:
    cloud = keystone_setup.admin_credential("admin", {"OS_CLIENT_CONFIG_FILE": "/c.yaml"})
    assert (cloud.cloud, cloud.config_file) == ("admin", "/c.yaml")
    environ = {
        "OS_AUTH_URL": "http://k:5000/v3",
        "OS_USERNAME": "admin",
        "OS_PASSWORD": "pw",
        "OS_PROJECT_NAME": "admin",
    }
    by_env = keystone_setup.admin_credential(None, environ)
    assert dict(by_env.auth) == {
        "auth_url": "http://k:5000/v3",
        "username": "admin",
        "password": "pw",
        "project_name": "admin",
        "user_domain_name": "Default",
        "project_domain_name": "Default",
    }
    with pytest.raises(ConfigError, match="give --os-cloud NAME or set OS_AUTH_URL, OS_PASSWORD"):
        keystone_setup.admin_credential(None, {"OS_USERNAME": "admin"})


def test_the_report_gives_the_configuration_lines() -> None:
    made = DomainSetup("d1", "thermik", "adm", "u1", ("domain thermik", "user adm"), "pw")
    assert keystone_setup.report(made).splitlines() == [
        "created domain thermik, user adm.",
        "Put these lines in [DEFAULT] of thermik.conf:",
        "stack_user_domain_id = d1",
        "stack_domain_admin = adm",
        "stack_domain_admin_password = pw",
    ]
    kept = DomainSetup("d1", "thermik", "adm", "u1", (), None)
    assert keystone_setup.report(kept).splitlines()[0] == "everything existed already."
    assert keystone_setup.report(kept).endswith("unchanged (the one set before)")
