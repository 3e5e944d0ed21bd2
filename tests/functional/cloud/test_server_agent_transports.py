"""POLL_SERVER_HEAT and ZAQAR_MESSAGE end to end (issue 15), in service mode on the loopback cloud.

thermik-api runs with Keystone (a trustee and a stack user domain of the test's own) and is
registered as ``orchestration`` (and the Keystone-authenticated Zaqar of
``tools/zaqar-keystone-up.sh`` as ``messaging``) in a region of the test's own. The demo user
creates a stack of a net, a subnet, a router, an OS::Nova::Server with the transport and three
SoftwareDeployments signalling with HEAT_SIGNAL. The test plays the guest from the user_data
Nova holds: the real os-collect-config logs in to the real Keystone as the server's stack user
and reads the server's metadata, through the API (``heat`` collector) or by popping the server's
queue in the stack user's project, where the engine posted it as that user (``zaqar``
collector); heat-agents run the scripts once each and heat-config-notify signals each deployment
through the API with the same user. That user reads nothing else (another resource, another
stack, the stack list) and is deleted with the server.

With ``[delivery] backend = zaqar``, ZAQAR_MESSAGE signals with HEAT_SIGNAL: heat-agents'
heat-config-notify sends ZAQAR_SIGNAL with python-zaqarclient's v1 API, which
python-zaqarclient 4 (the only one on PyPI the agent installs with current Python) no longer
has. On the builtin backend, the server's queue and ZAQAR_SIGNAL queues are in the Zaqar of
the stack user's catalog; the agent signals them with the tempest host's notifier
(``tools/realparts/tempest/notify.py``, zaqarclient's v2 API) in place of heat-agents' script.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import yaml
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3
from openstack.connection import Connection

from tests.e2e.api_process import ApiProcess
from tests.functional.cloud.agent_region import agent_region
from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.keystone_support import requester_of, service_user, stack_domain
from tests.functional.cloud.test_server_deployments import TEMPLATE as DEPLOYMENTS
from tests.functional.cloud.test_service_trusts import service_config
from tests.functional.guest import Guest, nova_boot_data
from tests.functional.services import AgentSandbox, ZaqarKeystoneEnv
from thermik.conf.settings import StackDomainSettings, TrusteeSettings

pytestmark = [
    pytest.mark.functional,
    pytest.mark.filterwarnings("ignore:'cgi' is deprecated:DeprecationWarning"),
]
PREFIX = "agentks"
#: The tempest host's heat-config-notify (ZAQAR_SIGNAL with zaqarclient's v2 API).
NOTIFY = Path(__file__).parents[3] / "tools" / "realparts" / "tempest" / "notify.py"
WAIT = 90.0


def signal_template(signal: str) -> dict[str, Any]:
    """The deployments template of test_server_deployments, signalling with ``signal``."""
    template: dict[str, Any] = yaml.safe_load(DEPLOYMENTS)
    template["heat_template_version"] = "2018-08-31"  # YAML reads a date
    for name in ("first", "second", "third"):
        template["resources"][name]["properties"]["signal_transport"] = signal
    return template


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


def configure(
    path: Path,
    cloud_env: CloudEnv,
    trustee: TrusteeSettings,
    domain: StackDomainSettings,
    region: str,
    zaqar_url: str | None = None,
) -> Path:
    """The service's thermik.conf, with the stack user domain and the agents' region (and
    delivery through the Zaqar at ``zaqar_url``)."""
    conf = service_config(path, cloud_env, trustee)
    text = conf.read_text()
    if zaqar_url is not None:
        text += f"[delivery]\nbackend = zaqar\n[zaqar]\nurl = {zaqar_url}\n"
    text = text.replace(
        "[DEFAULT]\n",
        "[DEFAULT]\n"
        f"stack_user_domain_name = {domain.domain_name}\n"
        f"stack_domain_admin = {domain.admin}\n"
        f"stack_domain_admin_password = {domain.admin_password}\n"
        f"region_name_for_agents = {region}\n",
        1,
    )
    conf.write_text(text)
    return conf


class Demo:
    """The demo user calling thermik-api, with a fresh token per request."""

    def __init__(self, api: ApiProcess, cloud_env: CloudEnv) -> None:
        self.cloud_env = cloud_env
        self.project_id = requester_of(cloud_env.connect()).project_id
        self.stacks = f"{api.root}/v1/{self.project_id}/stacks"

    def call(self, method: str, path: str = "", **kwargs: Any) -> requests.Response:
        token = requester_of(self.cloud_env.connect()).token
        assert token is not None
        return requests.request(
            method, f"{self.stacks}{path}", headers={"X-Auth-Token": token}, timeout=60, **kwargs
        )

    def create(self, name: str, template: dict[str, Any], **parameters: str) -> str:
        answer = self.call(
            "POST", json={"stack_name": name, "template": template, "parameters": parameters}
        )
        assert answer.status_code == 201, answer.text
        return f"/{name}/{answer.json()['stack']['id']}"

    def stack(self, path: str) -> dict[str, Any]:
        answer = self.call("GET", path)
        assert answer.status_code == 200, answer.text
        return dict(answer.json()["stack"])

    def settled(self, path: str, action: str) -> dict[str, Any]:
        deadline = time.monotonic() + WAIT
        while (view := self.stack(path))["stack_status"] == f"{action}_IN_PROGRESS":
            assert time.monotonic() < deadline, f"the stack is still {action}_IN_PROGRESS"
            time.sleep(0.5)
        return view

    def physical_id(self, path: str, resource: str) -> str:
        deadline = time.monotonic() + WAIT
        while True:
            answer = self.call("GET", f"{path}/resources/{resource}")
            if answer.status_code == 200:
                found = answer.json()["resource"]
                if found["resource_status"] == "CREATE_COMPLETE" and found["physical_resource_id"]:
                    return str(found["physical_resource_id"])
                status, reason = found["resource_status"], found["resource_status_reason"]
                assert not status.endswith("FAILED"), reason
            assert time.monotonic() < deadline, f"{resource} was never created: {answer.text}"
            time.sleep(0.5)

    def delete(self, path: str) -> None:
        answer = self.call("DELETE", path)
        if answer.status_code == 404:
            return
        assert answer.status_code == 204, answer.text
        deadline = time.monotonic() + WAIT
        while (found := self.call("GET", path)).status_code == 200:
            status = found.json()["stack"]["stack_status"]
            if status == "DELETE_COMPLETE":
                return
            assert status != "DELETE_FAILED", found.json()["stack"]["stack_status_reason"]
            assert time.monotonic() < deadline, "the stack was never deleted"
            time.sleep(0.5)


def agent_token(settings: dict[str, str]) -> str:
    """A token of the server's agent, as its collector gets one."""
    auth = v3.Password(
        auth_url=settings["auth_url"],
        user_id=settings["user_id"],
        password=settings["password"],
        project_id=settings["project_id"],
    )
    token = ks_session.Session(auth=auth).get_token()
    assert token is not None
    return str(token)


def runs(marks: Path) -> dict[str, list[str]]:
    return {f.name: f.read_text().splitlines() for f in sorted(marks.iterdir())}


def test_a_server_polls_thermiks_api_as_its_stack_user_and_signals_through_it(
    tmp_path: Path,
    cloud_env: CloudEnv,
    trustee: TrusteeSettings,
    domain: StackDomainSettings,
    admin: Connection,
    agent_sandbox: AgentSandbox,
) -> None:
    boot = deploy_end_to_end(
        tmp_path, cloud_env, trustee, domain, admin, agent_sandbox, "POLL_SERVER_HEAT"
    )
    heat = boot.agent_config["heat"]
    assert heat["resource_name"] == "server"


def test_a_server_pops_its_metadata_from_its_own_zaqar_queue_as_its_stack_user(
    tmp_path: Path,
    cloud_env: CloudEnv,
    trustee: TrusteeSettings,
    domain: StackDomainSettings,
    admin: Connection,
    agent_sandbox: AgentSandbox,
    zaqar_keystone_env: ZaqarKeystoneEnv,
) -> None:
    boot = deploy_end_to_end(
        tmp_path,
        cloud_env,
        trustee,
        domain,
        admin,
        agent_sandbox,
        "ZAQAR_MESSAGE",
        zaqar_keystone_env,
    )
    assert boot.agent_config["zaqar"]["queue_id"]


def test_a_builtin_engine_delivers_through_the_catalogs_zaqar_and_takes_zaqar_signals(
    tmp_path: Path,
    cloud_env: CloudEnv,
    trustee: TrusteeSettings,
    domain: StackDomainSettings,
    admin: Connection,
    agent_sandbox: AgentSandbox,
    zaqar_keystone_env: ZaqarKeystoneEnv,
) -> None:
    """The builtin backend offers no Zaqar: the server's queue and the deployments' signal
    queues are in the Zaqar of the stack user's catalog, reached as that user. The agent's
    notifier is the tempest host's (heat-agents' posts with zaqarclient's lost v1 API)."""
    notifier = agent_sandbox.path / "bin" / "heat-config-notify"
    notifier.write_text(
        "#!/usr/bin/env python3\nimport runpy\n"
        f"runpy.run_path({str(NOTIFY)!r}, run_name='__main__')\n"
    )
    boot = deploy_end_to_end(
        tmp_path,
        cloud_env,
        trustee,
        domain,
        admin,
        agent_sandbox,
        "ZAQAR_MESSAGE",
        zaqar_keystone_env,
        configured=False,
    )
    assert boot.agent_config["zaqar"]["queue_id"]


def deploy_end_to_end(
    tmp_path: Path,
    cloud_env: CloudEnv,
    trustee: TrusteeSettings,
    domain: StackDomainSettings,
    admin: Connection,
    agent_sandbox: AgentSandbox,
    transport: str,
    zaqar: ZaqarKeystoneEnv | None = None,
    *,
    configured: bool = True,
) -> Any:
    """The stack of three deployments to a server with ``transport``, created, run by the
    agent and deleted; the server's boot data (its agent's credentials are deleted by then).
    With ``zaqar``, Zaqar is in the catalog and, when ``configured``, the delivery backend
    (the deployments signal with HEAT_SIGNAL); else the backend is builtin and they signal
    with ZAQAR_SIGNAL."""
    collector = {"POLL_SERVER_HEAT": "heat", "ZAQAR_MESSAGE": "zaqar"}[transport]
    region = f"{PREFIX}-{uuid.uuid4().hex[:8]}"
    zaqar_url = None if zaqar is None else zaqar.url
    backend_url = zaqar_url if configured else None
    signal = "HEAT_SIGNAL" if configured else "ZAQAR_SIGNAL"
    api = ApiProcess(configure(tmp_path, cloud_env, trustee, domain, region, backend_url))
    demo = Demo(api, cloud_env)
    name = f"{PREFIX}-{uuid.uuid4().hex[:8]}"
    marks = tmp_path / "marks"
    marks.mkdir()
    stacks: list[str] = []
    services = {"orchestration": f"{api.root}/v1/%(tenant_id)s"}
    if zaqar_url is not None:
        services["messaging"] = zaqar_url
    try:
        with agent_region(cloud_env, region, services):
            stack = demo.create(
                name,
                signal_template(signal),
                image=cloud_env.image,
                flavor=cloud_env.flavor,
                public=cloud_env.public_network,
                marks=str(marks),
                transport=transport,
                cidr=f"10.{uuid.uuid4().int % 200 + 20}.9.0/24",
            )
            stacks.append(stack)
            other = demo.create(f"{name}-other", {"heat_template_version": "2018-08-31"})
            stacks.append(other)
            try:
                server_id = demo.physical_id(stack, "server")
            except AssertionError as error:
                raise AssertionError(f"{error}\n{api.rest_of_log()[-4000:]}") from None
            boot = nova_boot_data(admin, server_id)
            agent = boot.agent_config
            assert agent["collectors"] == ["ec2", collector, "local"]
            settings = agent[collector]
            if collector == "heat":
                assert settings["stack_id"] == stack[1:]
            assert settings["region_name"] == region
            user = admin.identity.get_user(settings["user_id"])
            assert user.domain_id == admin.identity.find_domain(domain.domain_name).id

            guest = Guest(agent_sandbox, boot)
            assert guest.collectors == [collector]
            guest.boot()
            with guest.polling():
                view = demo.settled(stack, "CREATE")
            tail = agent_sandbox.log.read_text()[-3000:]
            assert view["stack_status"] == "CREATE_COMPLETE", (
                f"{view['stack_status_reason']}\n{tail}\n{api.rest_of_log()[-3000:]}"
            )
            assert runs(marks) == {
                "first": ["CREATE one"],
                "second": ["CREATE two"],
                "third": ["CREATE three"],
            }
            outputs = {o["output_key"]: o["output_value"] for o in view["outputs"]}
            assert outputs["results"] == ["hello one", "hello two", "hello three"]
            check_reach(api, stack, other, settings)
            if zaqar is not None:
                # The engine made the server's queue in the stack user's project, as that user.
                token = agent_token(settings)
                assert settings["queue_id"] in zaqar.queues(token, settings["project_id"])

            demo.delete(stack)
            assert admin.identity.find_user(settings["user_id"]) is None
    finally:
        for path in stacks:
            demo.delete(path)
        api.close()
    assert not [s for s in admin.compute.servers(all_projects=True) if s.name.startswith(name)]
    return boot


def check_reach(api: ApiProcess, stack: str, other: str, settings: dict[str, str]) -> None:
    """The server's stack user reads its server's metadata, and nothing else."""
    as_agent = {"X-Auth-Token": agent_token(settings)}
    base = f"{api.root}/v1/{settings['project_id']}/stacks"
    own = requests.get(f"{base}{stack}/resources/server/metadata", headers=as_agent, timeout=60)
    assert own.status_code == 200, own.text
    assert len(own.json()["metadata"]["deployments"]) == 3
    for path, status in (
        (f"{stack}/resources/net/metadata", 403),
        (f"{other}", 403),
        (f"{other}/resources/server/metadata", 404),
        ("", 403),
    ):
        answer = requests.get(f"{base}{path}", headers=as_agent, timeout=60)
        assert answer.status_code == status, (path, answer.text)
    signal = requests.post(
        f"{base}{stack}/resources/net/signal", json={}, headers=as_agent, timeout=60
    )
    assert signal.status_code == 403, signal.text
