"""Service mode: a wait condition completes when a shell runs its handle's ``curl_cli``.

thermik-api behind the real Keystone, with a ``[trustee]`` and a stack user domain of the
test's own (what ``thermik-manage keystone setup-domain`` makes). The demo user creates a
stack with an OS::Heat::WaitConditionHandle (TOKEN_SIGNAL, Heat's default): the handle gets a
stack user of its own, and its ``curl_cli`` is Heat's ``curl -i -X POST -H 'X-Auth-Token:
<the stack user's token>' ... <the API's signal URL in the stack user project>``. The real
curl, run by a shell as a user_data script runs it, completes the wait with its data (two
signals); deleting the stack deletes the handle's user and the stack's project.
"""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from openstack.connection import Connection

from tests.e2e.api_process import ApiProcess
from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.keystone_support import requester_of, service_user, stack_domain
from tests.functional.cloud.test_service_trusts import service_config, until
from thermik.conf.settings import StackDomainSettings, TrusteeSettings

pytestmark = [
    pytest.mark.functional,
    pytest.mark.filterwarnings("ignore:'cgi' is deprecated:DeprecationWarning"),
]

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "handle": {"type": "OS::Heat::WaitConditionHandle"},
        "wait": {
            "type": "OS::Heat::WaitCondition",
            "properties": {"handle": {"get_resource": "handle"}, "count": 2, "timeout": 300},
        },
    },
    "outputs": {"data": {"value": {"get_attr": ["wait", "data"]}}},
}


@pytest.fixture
def trustee(cloud_env: CloudEnv) -> Iterator[TrusteeSettings]:
    with service_user(cloud_env) as settings:
        yield settings


@pytest.fixture
def domain(cloud_env: CloudEnv) -> Iterator[StackDomainSettings]:
    with stack_domain(cloud_env) as settings:
        yield settings


@pytest.fixture
def admin(cloud_env: CloudEnv) -> Iterator[Connection]:
    conn = cloud_env.connect(admin=True)
    yield conn
    conn.close()


def with_stack_domain(conf: Path, domain: StackDomainSettings) -> Path:
    """``conf`` with the stack user domain in ``[DEFAULT]``."""
    lines = [
        "[DEFAULT]",
        f"stack_user_domain_name = {domain.domain_name}",
        f"stack_domain_admin = {domain.admin}",
        f"stack_domain_admin_password = {domain.admin_password}",
    ]
    conf.write_text(conf.read_text() + "\n".join(lines) + "\n")
    return conf


def run_curl(curl_cli: str, body: dict[str, Any]) -> str:
    """Run ``curl_cli`` with the signal appended, through a shell as a user_data script."""
    line = f"{curl_cli} --data-binary '{json.dumps(body)}'"
    done = subprocess.run(
        ["sh", "-c", line], check=False, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_curl_cli_signals_through_the_api_with_the_stack_users_token(
    tmp_path: Path,
    cloud_env: CloudEnv,
    trustee: TrusteeSettings,
    domain: StackDomainSettings,
    admin: Connection,
) -> None:
    conf = with_stack_domain(service_config(tmp_path, cloud_env, trustee), domain)
    api = ApiProcess(conf)
    domain_id = admin.identity.find_domain(domain.domain_name).id
    name = f"ks-{uuid.uuid4().hex[:8]}"
    demo = requester_of(cloud_env.connect())
    stacks = f"{api.root}/v1/{demo.project_id}/stacks"

    def get(path: str) -> dict[str, Any]:
        answer = requests.get(path, headers={"X-Auth-Token": demo.token}, timeout=60)
        assert answer.status_code == 200, answer.text
        return dict(answer.json())

    try:
        created = requests.post(
            stacks,
            json={"stack_name": name, "template": TEMPLATE},
            headers={"X-Auth-Token": demo.token},
            timeout=60,
        )
        assert created.status_code == 201, api.rest_of_log()[-3000:]
        stack = f"{stacks}/{name}/{created.json()['stack']['id']}"
        handle = f"{stack}/resources/handle?with_attr=curl_cli&with_attr=token"

        def attributes() -> dict[str, Any] | None:
            found = get(handle)["resource"]
            return found["attributes"] if found["attributes"].get("curl_cli") else None

        shown = until(attributes, "the handle's curl_cli")
        project_id = get(stack)["stack"]["stack_user_project_id"]
        assert project_id
        endpoint = f"{api.root}/v1/{project_id}/stacks/{name}/{stack.rsplit('/', 1)[1]}"
        assert shown["curl_cli"] == (
            f"curl -i -X POST -H 'X-Auth-Token: {shown['token']}' "
            "-H 'Content-Type: application/json' -H 'Accept: application/json' "
            f"{endpoint}/resources/handle/signal"
        )
        [user] = list(admin.identity.users(domain_id=domain_id, default_project_id=project_id))

        answer = run_curl(shown["curl_cli"], {"status": "SUCCESS", "data": "one", "id": "a"})
        assert " 200 " in answer.splitlines()[0], answer
        run_curl(shown["curl_cli"], {"data": "two"})
        view = until(
            lambda: (s := get(stack)["stack"])["stack_status"] != "CREATE_IN_PROGRESS" and s,
            "the create",
        )
        assert view["stack_status"] == "CREATE_COMPLETE", view["stack_status_reason"]
        [output] = view["outputs"]
        assert json.loads(output["output_value"]) == {"a": "one", "2": "two"}

        # The stack user may signal and nothing more.
        listed = requests.get(
            f"{api.root}/v1/{project_id}/stacks",
            headers={"X-Auth-Token": shown["token"]},
            timeout=60,
        )
        assert listed.status_code == 403, listed.text

        deleted = requests.delete(stack, headers={"X-Auth-Token": demo.token}, timeout=60)
        assert deleted.status_code == 204, deleted.text
        until(lambda: admin.identity.find_user(user.id) is None, "the handle's user to go")
        until(lambda: admin.identity.find_project(project_id) is None, "the project to go")
    finally:
        api.close()


def test_a_failure_sent_with_curl_cli_fails_the_stack_with_its_reason(
    tmp_path: Path,
    cloud_env: CloudEnv,
    trustee: TrusteeSettings,
    domain: StackDomainSettings,
) -> None:
    api = ApiProcess(with_stack_domain(service_config(tmp_path, cloud_env, trustee), domain))
    demo = requester_of(cloud_env.connect())
    headers = {"X-Auth-Token": str(demo.token)}
    name = f"ks-{uuid.uuid4().hex[:8]}"
    stacks = f"{api.root}/v1/{demo.project_id}/stacks"
    try:
        created = requests.post(
            stacks, json={"stack_name": name, "template": TEMPLATE}, headers=headers, timeout=60
        )
        assert created.status_code == 201, api.rest_of_log()[-3000:]
        stack = f"{stacks}/{name}/{created.json()['stack']['id']}"

        def curl_cli() -> str | None:
            answer = requests.get(
                f"{stack}/resources/handle?with_attr=curl_cli", headers=headers, timeout=60
            )
            return answer.json()["resource"]["attributes"].get("curl_cli")

        command = until(curl_cli, "the handle's curl_cli")
        run_curl(command, {"status": "FAILURE", "reason": "the database did not start"})
        view = until(
            lambda: (
                (s := requests.get(stack, headers=headers, timeout=60).json()["stack"])[
                    "stack_status"
                ]
                != "CREATE_IN_PROGRESS"
                and s
            ),
            "the create",
        )
        assert view["stack_status"] == "CREATE_FAILED"
        assert "the database did not start" in view["stack_status_reason"]
        deleted = requests.delete(stack, headers=headers, timeout=60)
        assert deleted.status_code == 204, deleted.text
        until(
            lambda: (
                requests.get(stack, headers=headers, timeout=60).json()["stack"]["stack_status"]
                == "DELETE_COMPLETE"
            ),
            "the delete",
        )
    finally:
        api.close()
