"""Fixtures for functional tests against the real services tools/ starts on loopback.

``swift_env``, ``zaqar_env`` and ``agent_sandbox`` skip the test with the reason when their
service is not there, and fail it when ``THERMIK_REQUIRE_SERVICES=1`` (CI sets it). See
tests/functional/services.py for where the settings come from.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.functional.services import AgentSandbox, SwiftAccount, SwiftEnv, ZaqarEnv


@pytest.fixture(scope="session")
def swift_env() -> SwiftEnv:
    """The loopback Swift (tools/swift-up.sh), checked to accept a tempauth login."""
    return SwiftEnv.from_settings()


@pytest.fixture
def swift_account(swift_env: SwiftEnv) -> SwiftAccount:
    """A Swift account of the test's own, with an account TempURL key set."""
    return swift_env.new_account()


@pytest.fixture(scope="session")
def zaqar_env() -> ZaqarEnv:
    """The loopback Zaqar (tools/zaqar-up.sh), checked to answer /v2/ping."""
    return ZaqarEnv.from_settings()


@pytest.fixture
def agent_sandbox(tmp_path: Path) -> AgentSandbox:
    """A fresh sandbox of the real os-collect-config + heat-agents (tools/agent-setup.sh)."""
    return AgentSandbox.create(tmp_path / "agent")
