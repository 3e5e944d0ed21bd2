"""The real service behind ``thermik-api`` on a loopback port, for the real clients."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.support import TENANT
from tests.loopback import serve
from thermik.api.app import make_app
from thermik.conf.settings import ApiSettings, LimitSettings, Settings
from thermik.orchestration import Orchestrator
from thermik.service import build_orchestration_service


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Orchestrator]:
    """The orchestration service on a fresh embedded database, as thermik-api builds it."""
    built = build_orchestration_service(Settings.embedded(tmp_path / "state"))
    try:
        yield built
    finally:
        built.close()


@pytest.fixture
def endpoint(service: Orchestrator) -> Iterator[str]:
    """``http://127.0.0.1:P/v1/<tenant>`` served by thermik.api.wsgi_server over the service."""
    with serve(make_app(service, ApiSettings(), limits=LimitSettings())) as root:
        yield f"{root}/v1/{TENANT}"


@pytest.fixture(scope="module")
def shared_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Orchestrator]:
    """One real service for a whole test module (tests keep apart by tenant)."""
    built = build_orchestration_service(Settings.embedded(tmp_path_factory.mktemp("state")))
    try:
        yield built
    finally:
        built.close()


@pytest.fixture(scope="module")
def shared_root(shared_service: Orchestrator) -> Iterator[str]:
    """``http://127.0.0.1:P``: the noauth API over :func:`shared_service`."""
    with serve(make_app(shared_service, ApiSettings(), limits=LimitSettings())) as root:
        yield root


@pytest.fixture
def own_tenant(request: pytest.FixtureRequest) -> str:
    """A tenant of this test alone, so that its listings see only its own stacks."""
    return re.sub(r"[^A-Za-z0-9]+", "-", request.node.name).strip("-")[:60]
