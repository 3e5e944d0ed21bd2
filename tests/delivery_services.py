"""Settings for the real Swift and Zaqar the delivery tests can run against.

Set ``THERMIK_SWIFT_AUTH_URL``, ``THERMIK_SWIFT_USER``, ``THERMIK_SWIFT_KEY`` (tempauth by
default; ``THERMIK_SWIFT_AUTH_VERSION=3`` plus ``THERMIK_SWIFT_PROJECT`` for Keystone) and
``THERMIK_ZAQAR_URL``. Without them the tests skip and say why, unless
``THERMIK_REQUIRE_SERVICES=1``, which turns the skip into a failure.
"""

from __future__ import annotations

import os
import uuid

import pytest

from thermik.conf.settings import SwiftSettings, ZaqarSettings


def service_env(*names: str) -> dict[str, str]:
    """The values of ``names``; skips (or fails, when services are required) if any is unset."""
    values = {name: os.environ.get(name, "") for name in names}
    missing = [name for name, value in values.items() if not value]
    if missing:
        reason = f"set {', '.join(missing)} to run against the real service"
        if os.environ.get("THERMIK_REQUIRE_SERVICES") == "1":
            pytest.fail(f"THERMIK_REQUIRE_SERVICES=1 but {reason}")
        pytest.skip(reason)
    return values


def swift_settings() -> SwiftSettings:
    """Swift credentials from the environment, with a container prefix unique to this call."""
    env = service_env("THERMIK_SWIFT_AUTH_URL", "THERMIK_SWIFT_USER", "THERMIK_SWIFT_KEY")
    return SwiftSettings(
        auth_url=env["THERMIK_SWIFT_AUTH_URL"],
        auth_version=os.environ.get("THERMIK_SWIFT_AUTH_VERSION", "1"),
        username=env["THERMIK_SWIFT_USER"],
        password=env["THERMIK_SWIFT_KEY"],
        project_name=os.environ.get("THERMIK_SWIFT_PROJECT"),
        container_prefix=f"thermik-test-{uuid.uuid4().hex[:8]}",
    )


def zaqar_settings() -> ZaqarSettings:
    """The Zaqar URL from the environment, with a project unique to this call."""
    env = service_env("THERMIK_ZAQAR_URL")
    return ZaqarSettings(url=env["THERMIK_ZAQAR_URL"], project_id=f"thermik-{uuid.uuid4().hex}")
