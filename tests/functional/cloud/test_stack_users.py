"""Stack domain users against the real Keystone of the loopback cloud.

``setup_domain`` (what ``thermik-manage keystone setup-domain`` runs) makes a domain of the
test's own, idempotently; as its administrator, a stack tree gets its project on first use and
a resource its user, which can get a token on that project only; a retried create takes the
user it made; deletes clean up everything, and what is gone already is fine.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from openstack.connection import Connection

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.keystone_support import (
    delete_domain,
    keystone_settings,
    stack_domain,
    unique,
)
from tests.unit.resources.harness import Context
from thermik.clients import ClientPool, Credential
from thermik.clients.stack_users import StackDomainUsers, project_name, setup_domain
from thermik.cmd import manage
from thermik.conf.settings import ClientSettings, StackDomainSettings
from thermik.errors import CloudError, CloudFault
from thermik.resources import StackIdentity
from thermik.resources.stack_users import StackUsers, stack_user_services

pytestmark = pytest.mark.functional


@pytest.fixture
def pool() -> Iterator[ClientPool]:
    clients = ClientPool(ClientSettings(retry_limit=1))
    yield clients
    clients.close()


@pytest.fixture
def admin(cloud_env: CloudEnv) -> Iterator[Connection]:
    conn = cloud_env.connect(admin=True)
    yield conn
    conn.close()


@pytest.fixture(scope="module")
def domain(cloud_env: CloudEnv) -> Iterator[StackDomainSettings]:
    """A stack user domain of the module's own, made by setup_domain."""
    with stack_domain(cloud_env) as settings:
        yield settings


def token_of(pool: ClientPool, cloud_env: CloudEnv, **auth: str) -> Any:
    """A token of the user ``auth`` names (its keystoneauth AccessInfo)."""
    client = pool.client(Credential.from_auth(auth_url=cloud_env.auth_url, **auth), "keystone")
    return client.call(lambda conn: conn.session.auth.get_access(conn.session))


def test_setup_domain_is_idempotent(
    cloud_env: CloudEnv, pool: ClientPool, admin: Connection
) -> None:
    name = unique("setup")
    as_admin = pool.client(
        Credential.from_cloud(cloud_env.admin_cloud, str(cloud_env.config_file)), "keystone"
    )
    try:
        first = setup_domain(as_admin, name, "ks-setup-admin", "first-pw-1234")
        assert first.created == (f"domain {name}", "user ks-setup-admin")
        again = setup_domain(as_admin, name, "ks-setup-admin", None)
        assert (again.domain_id, again.admin_id, again.created) == (
            first.domain_id,
            first.admin_id,
            (),
        )
        assert again.password is None
        access = token_of(
            pool,
            cloud_env,
            username="ks-setup-admin",
            password="first-pw-1234",
            user_domain_id=first.domain_id,
            domain_id=first.domain_id,
        )
        assert access.domain_id == first.domain_id
        assert "admin" in access.role_names
        setup_domain(as_admin, name, "ks-setup-admin", "second-pw-1234")
        assert (
            token_of(
                pool,
                cloud_env,
                username="ks-setup-admin",
                password="second-pw-1234",
                user_domain_id=first.domain_id,
            ).user_id
            == first.admin_id
        )
    finally:
        delete_domain(admin, name)


def test_setup_domain_command_prints_the_configuration(
    cloud_env: CloudEnv,
    admin: Connection,
    tmp_path: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    conf = tmp_path / "thermik.conf"
    conf.write_text(f"[DEFAULT]\nstate_dir = {tmp_path}\n")
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(cloud_env.config_file))
    name = unique("cmd")
    argv = ["--config-file", str(conf), "keystone", "setup-domain", "--os-cloud"]
    argv += [cloud_env.admin_cloud, "--stack-user-domain-name", name]
    try:
        assert manage.main([*argv, "--stack-domain-admin-password", "cmd-pw-1234"]) == 0
        out = capsys.readouterr().out
        domain_id = admin.identity.find_domain(name).id
        assert out.splitlines()[2:] == [
            f"stack_user_domain_id = {domain_id}",
            "stack_domain_admin = thermik_stack_admin",
            "stack_domain_admin_password = cmd-pw-1234",
        ]
        assert manage.main(argv) == 0
        out = capsys.readouterr().out
        assert out.startswith("everything existed already.")
        assert "# stack_domain_admin_password: unchanged" in out
    finally:
        delete_domain(admin, name)


def test_a_stack_user_is_created_gets_a_token_and_is_deleted(
    cloud_env: CloudEnv, pool: ClientPool, admin: Connection, domain: StackDomainSettings
) -> None:
    users = StackDomainUsers(pool, keystone_settings(cloud_env, domain=domain))
    root = unique("stack")
    project_id = users.project_for(root, "tenant-1")
    # Another engine finds the same project by its name.
    other = StackDomainUsers(pool, keystone_settings(cloud_env, domain=domain))
    assert other.project_for(root, "tenant-1") == project_id
    try:
        project = admin.identity.get_project(project_id)
        assert (project.name, project.domain_id) == (project_name(root), users.domain_id())

        user = users.create_user(project_id, "ks-user")
        access = token_of(
            pool, cloud_env, user_id=user.user_id, password=user.password, project_id=project_id
        )
        assert (access.user_id, access.project_id) == (user.user_id, project_id)
        assert access.role_names == ["heat_stack_user"]
        demo_project = admin.identity.find_project("demo", domain_id="default").id
        with pytest.raises(CloudError):
            token_of(
                pool,
                cloud_env,
                user_id=user.user_id,
                password=user.password,
                project_id=demo_project,
            )

        retried = other.create_user(project_id, "ks-user")  # after a crash: same user
        assert retried.user_id == user.user_id
        assert retried.password != user.password
        assert (
            token_of(
                pool,
                cloud_env,
                user_id=user.user_id,
                password=retried.password,
                project_id=project_id,
            ).user_id
            == user.user_id
        )

        with pytest.raises(CloudFault, match="not a stack user"):
            users.delete_user(admin.identity.find_user("demo", domain_id="default").id)
        users.delete_user(user.user_id)
        users.delete_user(user.user_id)  # gone already
        assert admin.identity.find_user("ks-user", domain_id=users.domain_id()) is None

        left = users.create_user(project_id, "ks-left-behind")
        users.delete_project(root)
        assert admin.identity.find_project(project_name(root), domain_id=users.domain_id()) is None
        assert admin.identity.find_user(left.user_id) is None
        users.delete_project(root)  # gone already
    finally:
        admin.identity.delete_project(project_id, ignore_missing=True)


def test_plugins_get_a_user_named_by_the_resource_version(
    cloud_env: CloudEnv, pool: ClientPool, admin: Connection, domain: StackDomainSettings
) -> None:
    recorded: list[tuple[str, str]] = []
    services = StackUsers(
        StackDomainUsers(pool, keystone_settings(cloud_env, domain=domain)),
        root_of=lambda stack_id: f"{stack_id}-root",
        on_project=lambda root, project: recorded.append((root, project)),
    )
    ctx = Context(
        resource_type="OS::Nova::Server",
        stack=StackIdentity(unique("nested"), "s", "tenant-1"),
        version_id=7,
    )
    with pytest.raises(Exception, match="needs a Keystone user of its own"):
        stack_user_services(ctx)
    ctx.stack_users = services  # type: ignore[attr-defined]
    user = stack_user_services(ctx).create_user(ctx)
    try:
        assert recorded == [(f"{ctx.stack.id}-root", user.project_id)]
        found = admin.identity.get_user(user.user_id)
        assert found.name == f"thermik-{ctx.stack.id}-7"
        assert found.default_project_id == user.project_id
        assert services.auth_url == cloud_env.auth_url
    finally:
        services.delete_user(ctx, user.user_id)
        services.domain.delete_project(f"{ctx.stack.id}-root")
