"""The guest harness on a DeployedServer: its agent is booted from nothing but the server's
``os_collect_config`` attribute (what its user installs on the machine), through heat-agents'
own configuration template, and then runs three script deployments once each."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.functional.guest import BootData, Guest
from tests.functional.services import AgentSandbox
from tests.functional.software_deployments.engine import CTX, EngineUnderTest
from tests.functional.software_deployments.scenario import TEMPLATE, runs

pytestmark = pytest.mark.functional


def agent_config(engine: EngineUnderTest, stack: Any) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while True:
        view = engine.service.show_resource(CTX, stack, "server")
        occ = (view.attributes or {}).get("os_collect_config")
        if isinstance(occ, dict):
            return occ
        assert view.status != "FAILED", view.status_reason
        assert time.monotonic() < deadline, "the server never got its agent configuration"
        time.sleep(0.05)


def test_a_deployed_server_booted_from_its_os_collect_config(
    tmp_path: Path, agent_sandbox: AgentSandbox
) -> None:
    engine = EngineUnderTest(tmp_path)
    marks = tmp_path / "marks"
    marks.mkdir()
    try:
        stack = engine.create("guest", TEMPLATE, marks=str(marks))
        occ = agent_config(engine, stack)
        guest = Guest(agent_sandbox, BootData.from_agent_config(occ))
        rendered = guest.boot()
        assert rendered["request"]["metadata_url"] == occ["request"]["metadata_url"]
        assert guest.collectors == ["request"]
        with guest.polling():
            view = engine.wait(stack)
        assert (view.action, view.status) == ("CREATE", "COMPLETE"), view.status_reason
        assert runs(marks) == {
            "first": ["CREATE one"],
            "second": ["CREATE two"],
            "third": ["CREATE three"],
        }
        assert engine.outputs(stack)["results"] == ["hello one", "hello two", "hello three"]
    finally:
        engine.close()
