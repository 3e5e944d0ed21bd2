"""Fixtures for tests against the real loopback cloud (tools/cloud-up.sh).

``cloud_env`` skips the test, saying how to start the cloud, when it is not there, and fails it
when ``THERMIK_REQUIRE_SERVICES=1`` (CI).
"""

from __future__ import annotations

import pytest

from tests.functional.cloud.cloud import CloudEnv


@pytest.fixture(scope="session")
def cloud_env() -> CloudEnv:
    """The loopback cloud, checked to accept the demo user's login."""
    return CloudEnv.from_settings()
