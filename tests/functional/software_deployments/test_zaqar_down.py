"""Real Zaqar goes down while a deployment's metadata is delivered over ZAQAR_MESSAGE (a gate in
front of it cuts and refuses connections): the deployment fails with the reason, the server gets
an event saying delivery is failing, and once Zaqar is back delivery resumes (another event) and
the server's queue carries the deployment."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from zaqarclient.queues import client as zaqar_client

from tests.functional.services import ZaqarEnv
from tests.functional.software_deployments.engine import CTX, EngineUnderTest
from tests.functional.software_deployments.tcp_gate import TcpGate
from tests.functional.software_deployments.test_delivery_faults import (
    FAST,
    server_events,
    wait_for_recovery,
)
from thermik.conf.settings import DeliverySettings, ZaqarSettings

pytestmark = pytest.mark.functional

TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  deployments: {type: boolean, default: false}
conditions:
  deploying: {get_param: deployments}
resources:
  server:
    type: OS::Heat::DeployedServer
    properties: {software_config_transport: ZAQAR_MESSAGE}
  config: {type: OS::Heat::SoftwareConfig, properties: {group: script, config: 'true'}}
  app:
    type: OS::Heat::SoftwareDeployment
    condition: deploying
    properties:
      server: {get_resource: server}
      config: {get_resource: config}
      signal_transport: HEAT_SIGNAL
"""


def queued_deployments(client: zaqar_client.Client, queue_id: str) -> list[Any]:
    """The deployments of the newest document waiting in the server's queue."""
    found: list[Any] = []
    for message in client.queue(queue_id, auto_create=False).pop(count=10):
        found = message.body["deployments"] or found
    return found


def test_zaqar_down_and_back(tmp_path: Path, zaqar_env: ZaqarEnv) -> None:
    where = urlsplit(zaqar_env.url)
    gate = TcpGate((where.hostname or "127.0.0.1", where.port or 80))
    gate.open()
    project = f"thermik-down-{uuid.uuid4().hex[:8]}"
    gated_url = zaqar_env.url.replace(f":{where.port}", f":{gate.port}")
    delivery = DeliverySettings(backend="zaqar")
    engine = EngineUnderTest(
        tmp_path, delivery=delivery, zaqar=ZaqarSettings(gated_url, project), policy=FAST
    )
    client = zaqar_client.Client(
        zaqar_env.url,
        version=2,
        conf={"auth_opts": {"backend": "noauth", "options": {"os_project_id": project}}},
    )
    try:
        stack = engine.create("zaqardown", TEMPLATE)
        assert engine.wait(stack, 60).status == "COMPLETE"
        server = engine.service.show_resource(CTX, stack, "server")
        queue_id = (server.attributes or {})["os_collect_config"]["zaqar"]["queue_id"]
        gate.shut()
        # HEAT_SIGNAL: posting the metadata is the deployment's only Zaqar request.
        engine.update(stack, deployments=True)
        view = engine.wait(stack, 60)
        assert (view.action, view.status) == ("UPDATE", "FAILED")
        assert "Deployment to server failed: metadata delivery to server" in view.status_reason
        assert "still retrying" in view.status_reason
        assert "Connection refused" in view.status_reason
        assert server_events(engine.events(stack), "Metadata delivery failing: ")
        assert queued_deployments(client, queue_id) == []
        gate.open()
        wait_for_recovery(engine, stack, 60)
        (entry,) = queued_deployments(client, queue_id)
        inputs = {i["name"]: i["value"] for i in entry["inputs"]}
        assert inputs["deploy_resource_name"] == "app"
    finally:
        engine.close()
        gate.shut()
