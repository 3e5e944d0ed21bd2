"""Servers with software deployments, end to end (issue 15): a net, a subnet, a router, an
OS::Nova::Server with user_data_format SOFTWARE_CONFIG and three SoftwareDeployments on the
loopback cloud. The fake virt driver boots no guest, so the test plays it: it reads back the
user_data Nova holds, boots the real os-collect-config + heat-agents from it, and the scripts
run once each, signal back, and the stack completes with their outputs (builtin transport and
POLL_TEMP_URL on the real Swift)."""

from __future__ import annotations

import dataclasses
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine, local_settings
from tests.functional.guest import Guest, nova_boot_data
from tests.functional.services import AgentSandbox, SwiftEnv
from thermik.api.boundary import StackIdentity
from thermik.conf.settings import DeliverySettings, SwiftSettings
from thermik.service import orchestrator_for, start_engine

pytestmark = pytest.mark.functional
PREFIX = "guestcfg-e2e"

TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  image: {type: string}
  flavor: {type: string}
  public: {type: string}
  marks: {type: string}
  transport: {type: string}
  cidr: {type: string}
resources:
  net:
    type: OS::Neutron::Net
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: {get_param: cidr}}
  router:
    type: OS::Neutron::Router
    properties: {external_gateway_info: {network: {get_param: public}}}
  interface:
    type: OS::Neutron::RouterInterface
    properties: {router: {get_resource: router}, subnet: {get_resource: subnet}}
  server:
    type: OS::Nova::Server
    depends_on: interface
    properties:
      image: {get_param: image}
      flavor: {get_param: flavor}
      networks: [{network: {get_resource: net}}]
      user_data_format: SOFTWARE_CONFIG
      software_config_transport: {get_param: transport}
      user_data: "#!/bin/sh\\necho booted\\n"
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      inputs: [{name: who}, {name: marks}]
      outputs: [{name: result}]
      config: |
        #!/bin/sh
        echo "$deploy_action $who" >> "$marks/$deploy_resource_name"
        printf 'hello %s' "$who" > "$heat_outputs_path.result"
  first:
    type: OS::Heat::SoftwareDeployment
    properties:
      server: {get_resource: server}
      config: {get_resource: config}
      input_values: {who: one, marks: {get_param: marks}}
  second:
    type: OS::Heat::SoftwareDeployment
    properties:
      server: {get_resource: server}
      config: {get_resource: config}
      input_values: {who: two, marks: {get_param: marks}}
  third:
    type: OS::Heat::SoftwareDeployment
    properties:
      server: {get_resource: server}
      config: {get_resource: config}
      input_values: {who: three, marks: {get_param: marks}}
outputs:
  results:
    value: [{get_attr: [first, result]}, {get_attr: [second, result]}, {get_attr: [third, result]}]
  agent: {value: {get_attr: [server, os_collect_config]}}
"""


class DeployingEngine(CloudEngine):
    """A local-mode engine on the loopback cloud that delivers deployments (its builtin URLs
    served on loopback, or through ``delivery``)."""

    def __init__(
        self,
        root: Path,
        env: CloudEnv,
        delivery: DeliverySettings | None = None,
        swift: SwiftSettings | None = None,
    ) -> None:
        settings = local_settings(root, env)
        if delivery is not None:
            settings = dataclasses.replace(settings, delivery=delivery)
        if swift is not None:
            settings = dataclasses.replace(settings, swift=swift)
        self.settings = settings
        self.engine = start_engine(settings)
        self.service = orchestrator_for(self.engine, settings)


def server_id_once_created(engine: CloudEngine, stack: StackIdentity) -> str:
    deadline = time.monotonic() + 240
    while True:
        view = engine.resource(stack, "server")
        if view.status == "COMPLETE" and view.physical_resource_id:
            return view.physical_resource_id
        assert view.status != "FAILED", view.status_reason
        assert time.monotonic() < deadline, "the server was never created"
        time.sleep(0.2)


def runs(marks: Path) -> dict[str, list[str]]:
    return {f.name: f.read_text().splitlines() for f in sorted(marks.iterdir())}


def deploy_end_to_end(
    engine: CloudEngine, env: CloudEnv, sandbox: AgentSandbox, tmp_path: Path, transport: str
) -> None:
    name = f"{PREFIX}-{uuid.uuid4().hex[:8]}"
    marks = tmp_path / "marks"
    marks.mkdir()
    conn = env.connect()
    stack = engine.create(
        name,
        TEMPLATE,
        image=env.image,
        flavor=env.flavor,
        public=env.public_network,
        marks=str(marks),
        transport=transport,
        cidr=f"10.{uuid.uuid4().int % 200 + 20}.7.0/24",
    )
    try:
        server_id = server_id_once_created(engine, stack)
        boot = nova_boot_data(env.connect(admin=True), server_id)
        assert boot.agent_config["collectors"][0] == "ec2"
        guest = Guest(sandbox, boot)
        guest.boot()
        with guest.polling():
            view = engine.wait(stack)
        tail = sandbox.log.read_text()[-3000:]
        assert (view.action, view.status) == ("CREATE", "COMPLETE"), (
            f"{view.status_reason}\n{tail}"
        )
        assert runs(marks) == {
            "first": ["CREATE one"],
            "second": ["CREATE two"],
            "third": ["CREATE three"],
        }
        outputs: dict[str, Any] = engine.outputs(stack)
        assert outputs["results"] == ["hello one", "hello two", "hello three"]
        assert outputs["agent"]["collectors"] == boot.agent_config["collectors"]
    finally:
        view = engine.delete(stack)
        assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert not [s for s in conn.compute.servers() if str(s.name).startswith(name)]
    assert not [n for n in conn.network.networks() if str(n.name).startswith(name)]
    assert not [r for r in conn.network.routers() if str(r.name).startswith(name)]


def test_a_server_configured_by_three_deployments_over_the_builtin_transport(
    tmp_path: Path, cloud_env: CloudEnv, agent_sandbox: AgentSandbox
) -> None:
    engine = DeployingEngine(tmp_path / "engine", cloud_env)
    try:
        deploy_end_to_end(engine, cloud_env, agent_sandbox, tmp_path, "POLL_SERVER_CFN")
    finally:
        engine.close()


def test_a_server_configured_by_three_deployments_over_swift_temp_urls(
    tmp_path: Path, cloud_env: CloudEnv, agent_sandbox: AgentSandbox, swift_env: SwiftEnv
) -> None:
    swift = swift_env.delivery(f"{PREFIX}-{uuid.uuid4().hex[:8]}")
    engine = DeployingEngine(
        tmp_path / "engine", cloud_env, DeliverySettings(backend="swift"), swift
    )
    try:
        deploy_end_to_end(engine, cloud_env, agent_sandbox, tmp_path, "POLL_TEMP_URL")
    finally:
        engine.close()
