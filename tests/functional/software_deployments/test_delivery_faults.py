"""Swift down while a deployment's metadata is delivered, through the whole engine: the
deployment fails with a clear reason, the server gets an event saying so, and once Swift is
back delivery resumes (an event says that too) and the next update deploys.

The fake Swift goes down and up on command; the same code delivers to the real one.
"""

from __future__ import annotations

import time
from pathlib import Path

from tests.functional.software_deployments.engine import CTX, EngineUnderTest
from tests.functional.software_deployments.http_agent import HttpAgent
from thermik.api.boundary import EventView, StackIdentity
from thermik.delivery.fakeswift_cluster import FakeSwiftCluster
from thermik.delivery.impl_fakeswift import FakeSwiftBackend
from thermik.delivery.metadata_writer import DeliveryPolicy

FAST = DeliveryPolicy(
    initial_backoff=0.01,
    max_backoff=0.05,
    failure_backoff=0.05,
    max_attempts=4,
    recovery_interval=0.2,
)
TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  deployments: {type: boolean, default: false}
  signal: {type: string, default: TEMP_URL_SIGNAL}
conditions:
  deploying: {get_param: deployments}
resources:
  server: {type: OS::Heat::DeployedServer}
  config: {type: OS::Heat::SoftwareConfig, properties: {group: script, config: 'true'}}
  app:
    type: OS::Heat::SoftwareDeployment
    condition: deploying
    properties:
      server: {get_resource: server}
      config: {get_resource: config}
      signal_transport: {get_param: signal}
"""


def server_events(events: list[EventView], reason_start: str) -> list[EventView]:
    return [
        e
        for e in events
        if e.resource_name == "server" and e.status_reason.startswith(reason_start)
    ]


def wait_for_recovery(engine: EngineUnderTest, stack: StackIdentity, seconds: float) -> None:
    """Wait until the server's "Metadata delivery recovered" event is there."""
    deadline = time.monotonic() + seconds
    while not server_events(engine.events(stack), "Metadata delivery recovered"):
        assert time.monotonic() < deadline, "delivery never recovered"
        time.sleep(0.05)


def test_swift_down_fails_the_deployment_clearly_and_delivery_resumes(tmp_path: Path) -> None:
    cluster = FakeSwiftCluster()
    engine = EngineUnderTest(tmp_path, backend=FakeSwiftBackend(cluster, serve=True), policy=FAST)
    try:
        stack = engine.create("faulty", TEMPLATE)
        assert engine.wait(stack, 60).status == "COMPLETE"
        url = engine.metadata_url(stack)
        cluster.configure(down=True)
        engine.update(stack, deployments=True)
        view = engine.wait(stack, 60)
        assert (view.action, view.status) == ("UPDATE", "FAILED")
        assert "Deployment to server failed: metadata delivery to server" in view.status_reason
        assert "connection refused" in view.status_reason
        events = engine.events(stack)
        (failed,) = [e for e in events if e.resource_name == "app" and e.status == "FAILED"]
        server_id = engine.service.show_resource(CTX, stack, "server").physical_resource_id
        assert failed.status_reason == (
            "Error: resources.app: "
            f"Deployment to server failed: metadata delivery to server {server_id} failed 4 "
            "time(s) in a row, still retrying: fake Swift connection failed: connection refused"
        )
        (failing,) = server_events(events, "Metadata delivery failing: ")
        assert "still retrying" in failing.status_reason
        cluster.configure(down=False)
        wait_for_recovery(engine, stack, 30)
        with HttpAgent(url).running():
            engine.update(stack, deployments=True)
            view = engine.wait(stack, 60)
        assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    finally:
        engine.close()
