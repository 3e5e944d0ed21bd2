"""The guest harness on a real Nova server of the loopback cloud, made by hand with the SDK the
way OS::Nova::Server makes one with user_data_format SOFTWARE_CONFIG: its metadata endpoint is
reserved, its user_data built by :mod:`thermik.resources.nova.userdata` and the endpoint bound
to the server once Nova has it. The fake virt driver boots no guest: the harness reads back the
user_data Nova holds, boots the real agent from it, and three deployments to the server run
once each and signal back (builtin, POLL_TEMP_URL on the real Swift; ZAQAR_MESSAGE on the real
Zaqar without signals, see its test)."""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from openstack.connection import Connection
from openstack.exceptions import NotFoundException
from swiftclient import client as swift

from tests.functional.cloud.agent_identity import agent_identity
from tests.functional.cloud.cloud import CloudEnv
from tests.functional.guest import Guest, nova_boot_data
from tests.functional.services import AgentSandbox, SwiftEnv, ZaqarEnv
from tests.functional.software_deployments.engine import CTX, EngineUnderTest
from thermik.conf.settings import DeliverySettings, ZaqarSettings
from thermik.resources.agent_config import NOVA_DEFAULT_COLLECTORS
from thermik.resources.nova.userdata import build_user_data, encode_user_data, server_metadata

pytestmark = pytest.mark.functional
PREFIX = "guestcfg"

TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  server: {type: string}
  marks: {type: string}
  signal: {type: string, default: CFN_SIGNAL}
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      inputs: [{name: who}, {name: marks}]
      outputs: [{name: result}]
      config: |
        #!/bin/sh
        echo "$deploy_action $who $deploy_server_id" >> "$marks/$deploy_resource_name"
        printf 'hello %s' "$who" > "$heat_outputs_path.result"
  first:
    type: OS::Heat::SoftwareDeployment
    properties:
      server: {get_param: server}
      config: {get_resource: config}
      signal_transport: {get_param: signal}
      input_values: {who: one, marks: {get_param: marks}}
  second:
    type: OS::Heat::SoftwareDeployment
    properties:
      server: {get_param: server}
      config: {get_resource: config}
      signal_transport: {get_param: signal}
      input_values: {who: two, marks: {get_param: marks}}
  third:
    type: OS::Heat::SoftwareDeployment
    properties:
      server: {get_param: server}
      config: {get_resource: config}
      signal_transport: {get_param: signal}
      input_values: {who: three, marks: {get_param: marks}}
outputs:
  results:
    value: [{get_attr: [first, result]}, {get_attr: [second, result]}, {get_attr: [third, result]}]
"""
BOOT_SCRIPT = "#!/bin/sh\necho the template's own boot script\n"


@contextlib.contextmanager
def nova_server(conn: Connection, cloud: CloudEnv, name: str, user_data: str) -> Iterator[str]:
    """A server booted with ``user_data``, deleted (and waited for) at the end."""
    image = conn.image.find_image(cloud.image, ignore_missing=False)
    flavor = conn.compute.find_flavor(cloud.flavor, ignore_missing=False)
    server = conn.compute.create_server(
        name=name, image_id=image.id, flavor_id=flavor.id, networks="none", user_data=user_data
    )
    try:
        conn.compute.wait_for_server(server, status="ACTIVE", interval=0.5, wait=120)
        yield str(server.id)
    finally:
        conn.compute.delete_server(server, ignore_missing=True)
        deadline = time.monotonic() + 120
        # Nova shows a deleted server as DELETED for a while before it is gone.
        with contextlib.suppress(NotFoundException):
            while time.monotonic() < deadline:
                conn.compute.get_server(server.id)
                time.sleep(0.5)


def runs(marks: Path) -> dict[str, list[str]]:
    return {f.name: f.read_text().splitlines() for f in sorted(marks.iterdir())}


def wait_for_runs(marks: Path, expected: dict[str, list[str]], sandbox: AgentSandbox) -> None:
    deadline = time.monotonic() + 60
    while runs(marks) != expected:
        tail = sandbox.log.read_text()[-3000:]
        assert time.monotonic() < deadline, f"the scripts ran {runs(marks)}\n{tail}"
        time.sleep(0.2)


def configure_by_deployments(
    engine: EngineUnderTest,
    cloud: CloudEnv,
    sandbox: AgentSandbox,
    tmp_path: Path,
    *,
    transport: str = "POLL_TEMP_URL",
    credentials: dict[str, str] | None = None,
    signal: str = "CFN_SIGNAL",
) -> None:
    """Boot a server as OS::Nova::Server would, play its guest, deploy three scripts to it."""
    services = engine.engine.deployments
    assert services is not None
    name = f"{PREFIX}-{uuid.uuid4().hex[:8]}"
    conn, admin = cloud.connect(), cloud.connect(admin=True)
    reserved = services.reserve_server(
        name, transport, {}, credentials=credentials, default_collectors=NOVA_DEFAULT_COLLECTORS
    )
    metadata = server_metadata({"role": "guest"}, reserved.agent_config)
    user_data = encode_user_data(build_user_data("SOFTWARE_CONFIG", BOOT_SCRIPT, metadata))
    assert user_data is not None
    with nova_server(conn, cloud, name, user_data) as server_id:
        services.bind_server(server_id, reserved.record)
        boot = nova_boot_data(admin, server_id)
        assert boot.metadata == metadata
        assert boot.part("cfn-init-data").content_type == "text/x-cfninitdata"
        assert [p.text for p in boot.parts if p.content_type == "text/plain"] == [BOOT_SCRIPT]
        guest = Guest(sandbox, boot)
        rendered = guest.boot()
        (collector,) = guest.collectors
        assert (
            dict(rendered[collector]).items()
            >= {k: v for k, v in boot.agent_config[collector].items() if v}.items()
        )
        marks = tmp_path / "marks"
        marks.mkdir()
        stack = engine.create(name, TEMPLATE, server=server_id, marks=str(marks), signal=signal)
        expected = {
            "first": [f"CREATE one {server_id}"],
            "second": [f"CREATE two {server_id}"],
            "third": [f"CREATE three {server_id}"],
        }
        with guest.polling():
            view = engine.wait(stack)
            tail = sandbox.log.read_text()[-3000:]
            assert (view.action, view.status) == ("CREATE", "COMPLETE"), (
                f"{view.status_reason}\n{tail}"
            )
            # Without a signal the stack does not wait for the scripts.
            wait_for_runs(marks, expected, sandbox)
        time.sleep(1)  # a script run twice would show by now
        assert runs(marks) == expected
        if signal != "NO_SIGNAL":
            results = engine.outputs(stack)["results"]
            assert results == ["hello one", "hello two", "hello three"]
        engine.service.delete_stack(CTX, stack)
        view = engine.wait(stack)
        assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
        services.release_server(server_id)
    assert not list(conn.compute.servers(name=name))


def test_a_nova_server_configured_through_the_builtin_transport(
    tmp_path: Path, cloud_env: CloudEnv, agent_sandbox: AgentSandbox
) -> None:
    engine = EngineUnderTest(tmp_path)
    try:
        configure_by_deployments(engine, cloud_env, agent_sandbox, tmp_path)
    finally:
        engine.close()


def test_a_nova_server_configured_through_a_swift_temp_url(
    tmp_path: Path, cloud_env: CloudEnv, agent_sandbox: AgentSandbox, swift_env: SwiftEnv
) -> None:
    prefix = f"{PREFIX}-{uuid.uuid4().hex[:8]}"
    settings = swift_env.delivery(prefix)
    engine = EngineUnderTest(tmp_path, delivery=DeliverySettings(backend="swift"), swift=settings)
    try:
        configure_by_deployments(engine, cloud_env, agent_sandbox, tmp_path)
    finally:
        engine.close()
    url, token = swift.get_auth(
        swift_env.auth_url, swift_env.user, swift_env.key, auth_version="1"
    )
    deadline = time.monotonic() + 10
    while swift.get_account(url, token, prefix=prefix)[1]:
        # The signal objects went with the deployments, the metadata with the server.
        assert time.monotonic() < deadline, "the server's container was left in Swift"
        time.sleep(0.2)


def test_a_nova_server_configured_through_zaqar_messages(
    tmp_path: Path, cloud_env: CloudEnv, agent_sandbox: AgentSandbox, zaqar_env: ZaqarEnv
) -> None:
    """ZAQAR_MESSAGE: the real zaqar collector logs in to the real Keystone as the server's
    agent, finds Zaqar in its catalog and pops the documents the engine posts. The scripts
    signal nothing: heat-agents' heat-config-notify sends ZAQAR_SIGNAL with zaqarclient's v1
    API, which python-zaqarclient 4 (the only one the agent can install) no longer has."""
    with agent_identity(cloud_env, PREFIX, zaqar_env.url) as agent:
        delivery = DeliverySettings(
            backend="zaqar",
            default_software_config_transport="ZAQAR_MESSAGE",
            default_deployment_signal_transport="ZAQAR_SIGNAL",
        )
        zaqar = ZaqarSettings(zaqar_env.url, agent.project_id)
        engine = EngineUnderTest(tmp_path, delivery=delivery, zaqar=zaqar)
        try:
            configure_by_deployments(
                engine,
                cloud_env,
                agent_sandbox,
                tmp_path,
                transport="ZAQAR_MESSAGE",
                credentials=agent.credentials(),
                signal="NO_SIGNAL",
            )
        finally:
            engine.close()
