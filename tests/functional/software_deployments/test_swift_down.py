"""Real Swift goes down while a deployment's metadata is delivered (a gate in front of it cuts
and refuses connections): the deployment fails with the reason, the server gets an event saying
delivery is failing, and once Swift is back delivery resumes (another event) and the next update
deploys."""

from __future__ import annotations

import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.functional.services import SwiftEnv
from tests.functional.software_deployments.engine import EngineUnderTest
from tests.functional.software_deployments.http_agent import HttpAgent
from tests.functional.software_deployments.tcp_gate import TcpGate
from tests.functional.software_deployments.test_delivery_faults import (
    FAST,
    TEMPLATE,
    server_events,
    wait_for_recovery,
)
from thermik.conf.settings import DeliverySettings, SwiftSettings

pytestmark = pytest.mark.functional


def test_swift_down_and_back(tmp_path: Path, swift_env: SwiftEnv) -> None:
    where = urlsplit(swift_env.auth_url)
    gate = TcpGate((where.hostname or "127.0.0.1", where.port or 80))
    gate.open()
    swift = SwiftSettings(
        auth_url=swift_env.auth_url.replace(f":{where.port}", f":{gate.port}"),
        auth_version="1",
        username=swift_env.user,
        password=swift_env.key,
        container_prefix=f"thermik-down-{uuid.uuid4().hex[:8]}",
    )
    engine = EngineUnderTest(
        tmp_path, delivery=DeliverySettings(backend="swift"), swift=swift, policy=FAST
    )
    try:
        stack = engine.create("swiftdown", TEMPLATE)
        assert engine.wait(stack, 60).status == "COMPLETE"
        url = engine.metadata_url(stack)
        assert f":{gate.port}/" in url
        gate.shut()
        # HEAT_SIGNAL: the metadata write is the deployment's only Swift request.
        engine.update(stack, deployments=True, signal="HEAT_SIGNAL")
        view = engine.wait(stack, 60)
        assert (view.action, view.status) == ("UPDATE", "FAILED")
        assert "Deployment to server failed: metadata delivery to server" in view.status_reason
        assert "still retrying" in view.status_reason
        assert "Connection refused" in view.status_reason
        assert server_events(engine.events(stack), "Metadata delivery failing: ")
        gate.open()
        wait_for_recovery(engine, stack, 60)
        with HttpAgent(url).running():
            engine.update(stack, deployments=True, signal="TEMP_URL_SIGNAL")
            view = engine.wait(stack, 60)
        assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    finally:
        engine.close()
        gate.shut()
