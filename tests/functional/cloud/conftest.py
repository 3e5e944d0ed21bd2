"""Fixtures for tests against the real loopback cloud (tools/cloud-up.sh).

``cloud_env`` skips the test, saying how to start the cloud, when it is not there, and fails it
when ``THERMIK_REQUIRE_SERVICES=1`` (CI). When tools/run-tests.sh is starting the cloud beside
the suite, it waits for it first.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.functional.cloud.cloud import CloudEnv, wait_for_cloud_job
from tests.functional.cloud.engine import CloudEngine
from tests.functional.services import ZaqarKeystoneEnv

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The cloud's tests run last: CI starts the cloud beside the suite, which takes minutes."""
    items.sort(key=lambda item: HERE in Path(item.path).parents)


@pytest.fixture(scope="session")
def cloud_env() -> CloudEnv:
    """The loopback cloud, checked to accept the demo user's login."""
    return CloudEnv.from_settings()


@pytest.fixture(scope="session")
def zaqar_keystone_env(cloud_env: CloudEnv) -> ZaqarKeystoneEnv:
    """The Zaqar behind the cloud's Keystone (tools/zaqar-keystone-up.sh, which
    tools/run-tests.sh starts once the cloud is up: waited for like the cloud)."""
    wait_for_cloud_job()
    return ZaqarKeystoneEnv.from_settings()


@pytest.fixture
def cloud_engine(cloud_env: CloudEnv, tmp_path: Path) -> Iterator[CloudEngine]:
    """A local-mode engine acting as the demo user of the loopback cloud."""
    engine = CloudEngine(tmp_path / "state", cloud_env)
    try:
        yield engine
    finally:
        engine.close()


@pytest.fixture
def admin_engine(cloud_env: CloudEnv, tmp_path: Path) -> Iterator[CloudEngine]:
    """A local-mode engine acting as the admin of the loopback cloud (admin-only types)."""
    engine = CloudEngine(tmp_path / "admin-state", cloud_env, admin=True)
    try:
        yield engine
    finally:
        engine.close()
