"""thermik-api's production server: one access line per request, never a query string."""

from __future__ import annotations

import logging
import threading
import urllib.request
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from thermik.api.production_server import ProductionServer, listen
from thermik.conf.settings import ApiSettings


def hello(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    start_response("200 OK", [("Content-Length", "2")])
    return [b"ok"]


def test_requests_are_served_and_logged_without_their_query(
    caplog: pytest.LogCaptureFixture,
) -> None:
    sock = listen("127.0.0.1", 0)
    server = ProductionServer(hello, sock, ApiSettings(threads=2), max_body=1024)
    serving = threading.Thread(target=server.serve, daemon=True)
    serving.start()
    host, port = server.address
    try:
        with caplog.at_level(logging.INFO, logger="thermik.api.access"):
            url = f"http://{host}:{port}/delivery/v1/metadata/t?temp_url_sig=s3cret"
            with urllib.request.urlopen(url, timeout=10) as response:
                assert response.read() == b"ok"
    finally:
        server.close()
        serving.join(timeout=10)
    # Only the access lines: waitress may warn of its task queue on a busy machine.
    access = [r.getMessage() for r in caplog.records if r.name == "thermik.api.access"]
    assert access == ["127.0.0.1 GET /delivery/v1/metadata/t 200"]
    assert not serving.is_alive()
