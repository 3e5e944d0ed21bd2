"""examples/deployments/deployments.yaml as a user runs it: the real os-collect-config +
heat-agents hooks poll the builtin URL, run both scripts and signal their outputs back."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.functional.services import AgentSandbox
from tests.functional.software_deployments.engine import EngineUnderTest

pytestmark = pytest.mark.functional

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "deployments" / "deployments.yaml"


def test_the_deployments_example_runs_its_scripts(
    tmp_path: Path, agent_sandbox: AgentSandbox
) -> None:
    engine = EngineUnderTest(tmp_path)
    try:
        stack = engine.create("example", EXAMPLE.read_text(), port=8181)
        with agent_sandbox.polling(engine.metadata_url(stack), interval=1):
            view = engine.wait(stack)
        log = agent_sandbox.log.read_text()[-3000:]
        assert (view.action, view.status) == ("CREATE", "COMPLETE"), f"{view.status_reason}\n{log}"
        outputs = engine.outputs(stack)
        assert outputs["status_codes"] == [0, 0]
        written = Path(outputs["written"])
        assert written.read_text() == "listen = 8181\n"
        written.unlink()
        assert outputs["check_stdout"].startswith("checked on ")
    finally:
        engine.close()
