"""(b) The same over real Swift: POLL_TEMP_URL (the agent polls a Swift TempURL) and
TEMP_URL_SIGNAL (it PUTs its signal to one; the engine watches the signal object)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from swiftclient import client as swift

from tests.functional.services import AgentSandbox, SwiftEnv
from tests.functional.software_deployments.engine import EngineUnderTest
from tests.functional.software_deployments.scenario import deploy_and_update
from thermik.conf.settings import DeliverySettings

pytestmark = pytest.mark.functional


def test_three_script_deployments_and_an_update_over_swift(
    tmp_path: Path, agent_sandbox: AgentSandbox, swift_env: SwiftEnv
) -> None:
    prefix = f"thermik-e2e-{uuid.uuid4().hex[:8]}"
    settings = swift_env.delivery(prefix)
    engine = EngineUnderTest(tmp_path, delivery=DeliverySettings(backend="swift"), swift=settings)
    try:
        deploy_and_update(engine, agent_sandbox, tmp_path / "marks")
    finally:
        engine.close()
    url, token = swift.get_auth(
        swift_env.auth_url, swift_env.user, swift_env.key, auth_version="1"
    )
    _, containers = swift.get_account(url, token, prefix=prefix)
    (container,) = containers
    _, objects = swift.get_container(url, token, container["name"])
    names = sorted(o["name"] for o in objects)
    assert "metadata" in names
    assert len([n for n in names if n.startswith("signal-")]) == 3  # the superseded one is gone
