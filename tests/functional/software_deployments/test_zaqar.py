"""ZAQAR_MESSAGE + ZAQAR_SIGNAL through the whole engine against a real Zaqar. The agent's part
is played with zaqarclient (the real agent's zaqar collector needs Keystone, and heat-agents'
ZAQAR_SIGNAL needs a zaqarclient older than 4): pop the server's queue as the collector does,
post the result to the deployment's signal queue as heat-config-notify would."""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from zaqarclient.queues import client as zaqar_client

from tests.functional.services import ZaqarEnv
from tests.functional.software_deployments.engine import CTX, EngineUnderTest
from thermik.conf.settings import DeliverySettings, ZaqarSettings

pytestmark = pytest.mark.functional

TEMPLATE = """\
heat_template_version: 2018-08-31
resources:
  server:
    type: OS::Heat::DeployedServer
    properties: {software_config_transport: ZAQAR_MESSAGE}
  config:
    type: OS::Heat::SoftwareConfig
    properties: {group: script, config: 'true', outputs: [{name: result}]}
  app:
    type: OS::Heat::SoftwareDeployment
    properties:
      server: {get_resource: server}
      config: {get_resource: config}
      signal_transport: ZAQAR_SIGNAL
outputs:
  result: {value: {get_attr: [app, result]}}
"""


def test_zaqar_message_and_signal(tmp_path: Path, zaqar_env: ZaqarEnv) -> None:
    project = f"thermik-{uuid.uuid4().hex[:8]}"
    delivery = DeliverySettings(
        backend="zaqar",
        default_software_config_transport="ZAQAR_MESSAGE",
        default_deployment_signal_transport="ZAQAR_SIGNAL",
    )
    engine = EngineUnderTest(
        tmp_path, delivery=delivery, zaqar=ZaqarSettings(zaqar_env.url, project)
    )
    client = zaqar_client.Client(
        zaqar_env.url,
        version=2,
        conf={"auth_opts": {"backend": "noauth", "options": {"os_project_id": project}}},
    )
    try:
        stack = engine.create("queued", TEMPLATE)
        view = engine.service.show_resource(CTX, stack, "server")
        while not (view.attributes or {}).get("os_collect_config"):
            time.sleep(0.05)
            view = engine.service.show_resource(CTX, stack, "server")
        occ: dict[str, Any] = view.attributes["os_collect_config"]  # type: ignore[index]
        assert occ["collectors"] == ["zaqar", "local"]
        queue = client.queue(occ["zaqar"]["queue_id"], auto_create=False)
        deadline = time.monotonic() + 30
        entries: list[dict[str, Any]] = []
        while not entries:
            assert time.monotonic() < deadline, "the deployment never reached the queue"
            for message in queue.pop(count=10):
                entries = message.body["deployments"] or entries
            time.sleep(0.05)
        inputs = {i["name"]: i["value"] for i in entries[0]["inputs"]}
        assert inputs["deploy_signal_transport"] == "ZAQAR_SIGNAL"
        signals = client.queue(inputs["deploy_queue_id"], auto_create=False)
        signals.post({"body": {"deploy_status_code": 0, "result": "queued"}, "ttl": 600})
        view_stack = engine.wait(stack, 60)
        assert (view_stack.action, view_stack.status) == ("CREATE", "COMPLETE")
        assert engine.outputs(stack)["result"] == "queued"
    finally:
        engine.close()
