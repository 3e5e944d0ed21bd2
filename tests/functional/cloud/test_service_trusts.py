"""Service mode end to end: thermik-api behind the real Keystone acts for the demo user by a trust.

thermik-api runs with ``auth_strategy = keystone`` and a ``[trustee]`` service user of the
test's own. The demo user creates a stack holding an OS::Neutron::Net with a token that is
revoked as soon as the request was answered: the stack stores a trust (its id sealed in the
database), the network is made in demo's project by the trust-scoped credential, and deleting
the stack deletes the network and the trust.
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import openstack.config
import pytest
import requests
from openstack.connection import Connection

from tests.e2e.api_process import ApiProcess
from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.keystone_support import requester_of, revoke, service_user
from thermik.conf.settings import DatabaseSettings, TrusteeSettings
from thermik.persistence.factory import open_store

pytestmark = [
    pytest.mark.functional,
    pytest.mark.filterwarnings("ignore:'cgi' is deprecated:DeprecationWarning"),
]

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "parameters": {"name": {"type": "string"}},
    "resources": {
        "net": {"type": "OS::Neutron::Net", "properties": {"name": {"get_param": "name"}}}
    },
}
#: Longest wait for a stack operation or a trust's release.
WAIT = 120.0


def service_config(path: Path, cloud_env: CloudEnv, trustee: TrusteeSettings) -> Path:
    """thermik.conf of a service: tokens checked as the cloud's admin, trusts to ``trustee``."""
    loader = openstack.config.OpenStackConfig(
        config_files=[str(cloud_env.config_file)], load_envvars=False
    )
    admin = loader.get_one(cloud=cloud_env.admin_cloud).config["auth"]
    authtoken = {
        "www_authenticate_uri": cloud_env.auth_url,
        "auth_url": cloud_env.auth_url,
        "auth_type": "password",
        "username": admin["username"],
        "password": admin["password"],
        "project_name": admin["project_name"],
        "user_domain_name": "Default",
        "project_domain_name": "Default",
    }
    lines = [f"[DEFAULT]\nstate_dir = {path / 'state'}\n[api]\nauth_strategy = keystone"]
    lines += ["[keystone_authtoken]", *(f"{k} = {v}" for k, v in authtoken.items())]
    lines += ["[trustee]", "auth_type = password"]
    lines += [f"{name} = {value}" for name, value in trustee.options]
    conf = path / "thermik.conf"
    conf.write_text("\n".join(lines) + "\n")
    return conf


@pytest.fixture
def trustee(cloud_env: CloudEnv) -> Iterator[TrusteeSettings]:
    with service_user(cloud_env) as settings:
        yield settings


@pytest.fixture
def admin(cloud_env: CloudEnv) -> Iterator[Connection]:
    conn = cloud_env.connect(admin=True)
    yield conn
    conn.close()


def until(predicate: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + WAIT
    while not (found := predicate()):
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.5)
    return found


def trusts_to(admin: Connection, trustee_id: str) -> list[Any]:
    return list(admin.identity.trusts(trustee_user_id=trustee_id))


def test_a_stack_acts_for_its_user_by_a_trust_deleted_with_it(
    tmp_path: Path, cloud_env: CloudEnv, trustee: TrusteeSettings, admin: Connection
) -> None:
    api = ApiProcess(service_config(tmp_path, cloud_env, trustee))
    trustee_id = admin.identity.find_user(dict(trustee.options)["username"]).id
    name = f"ks-{uuid.uuid4().hex[:8]}"
    demo = requester_of(cloud_env.connect())
    assert demo.token is not None
    stacks = f"{api.root}/v1/{demo.project_id}/stacks"
    network_id = None
    try:
        created = requests.post(
            stacks,
            json={"stack_name": name, "template": TEMPLATE, "parameters": {"name": name}},
            headers={"X-Auth-Token": demo.token},
            timeout=60,
        )
        assert created.status_code == 201, api.rest_of_log()[-3000:]
        revoke(cloud_env, admin, demo.token)
        stack = f"{stacks}/{name}/{created.json()['stack']['id']}"

        # Every later request with a token of its own: the revoked one may still be cached.
        def show(path: str = "") -> dict[str, Any]:
            token = requester_of(cloud_env.connect()).token
            answer = requests.get(f"{stack}{path}", headers={"X-Auth-Token": token}, timeout=60)
            assert answer.status_code == 200, answer.text
            return dict(answer.json())

        view = until(
            lambda: (s := show()["stack"])["stack_status"] != "CREATE_IN_PROGRESS" and s,
            "the create",
        )
        assert view["stack_status"] == "CREATE_COMPLETE", view["stack_status_reason"]
        network_id = show("/resources/net")["resource"]["physical_resource_id"]
        network = admin.network.get_network(network_id)
        assert (network.name, network.project_id) == (name, demo.project_id)

        [trust] = trusts_to(admin, trustee_id)
        assert (trust.trustor_user_id, trust.project_id) == (demo.user_id, demo.project_id)
        assert trust.is_impersonation
        database = tmp_path / "state" / "thermik.sqlite"
        with sqlite3.connect(database) as raw:
            sealed = raw.execute("SELECT trust_id FROM user_creds").fetchall()
        assert len(sealed) == 1
        assert trust.id not in sealed[0][0], "the trust id is stored encrypted"
        key = (tmp_path / "state" / "auth_encryption_key").read_text().strip()
        store = open_store(DatabaseSettings(f"sqlite:///{database}"), key)
        try:
            assert store.get_user_creds(raw_creds_id(database)).trust_id == trust.id
        finally:
            store.close()

        token = requester_of(cloud_env.connect()).token
        deleted = requests.delete(stack, headers={"X-Auth-Token": token}, timeout=60)
        assert deleted.status_code == 204, deleted.text
        until(lambda: not trusts_to(admin, trustee_id), "the trust's release")
        assert admin.network.find_network(network_id) is None
        until(lambda: count_creds(database) == 0, "the credentials' row to go")
    finally:
        api.close()
        for left in trusts_to(admin, trustee_id):
            admin.identity.delete_trust(left, ignore_missing=True)
        if network_id is not None:
            admin.network.delete_network(network_id, ignore_missing=True)


def raw_creds_id(database: Path) -> int:
    with sqlite3.connect(database) as raw:
        [(creds_id,)] = raw.execute("SELECT user_creds_id FROM stack").fetchall()
    return int(creds_id)


def count_creds(database: Path) -> int:
    with sqlite3.connect(database) as raw:
        return int(raw.execute("SELECT COUNT(*) FROM user_creds").fetchone()[0])
