"""(a) The builtin transport end to end: the engine serves the metadata and takes the signals
itself; the real os-collect-config + heat-agents hooks poll it, run each script once, signal."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.functional.services import AgentSandbox
from tests.functional.software_deployments.engine import EngineUnderTest
from tests.functional.software_deployments.scenario import deploy_and_update

pytestmark = pytest.mark.functional


def test_three_script_deployments_and_an_update(
    tmp_path: Path, agent_sandbox: AgentSandbox
) -> None:
    engine = EngineUnderTest(tmp_path)
    try:
        deploy_and_update(engine, agent_sandbox, tmp_path / "marks")
    finally:
        engine.close()
