"""The real service behind ``thermik-api`` on a loopback port, for the real clients."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from thermik.api.app import make_app
from thermik.api.wsgi_server import make_server
from thermik.conf.settings import ApiSettings, LimitSettings, Settings
from thermik.orchestration import Orchestrator
from thermik.service import build_orchestration_service

TENANT = "tenant1"


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
    app = make_app(service, ApiSettings(), limits=LimitSettings())
    server = make_server(app, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1/{TENANT}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
