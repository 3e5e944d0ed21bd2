"""The built-in server answers requests concurrently, one thread per connection."""

from __future__ import annotations

import logging
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.unit.api.memory_service import MemoryService
from thermik.api.app import make_app
from thermik.api.boundary import RequestContext
from thermik.api.wsgi_server import make_server
from thermik.conf.settings import ApiSettings, LimitSettings


class RendezvousService(MemoryService):
    """Answers ``/build_info`` only once two requests are inside the service at once."""

    def __init__(self) -> None:
        super().__init__()
        self.barrier = threading.Barrier(2, timeout=10)

    def engine_revision(self, ctx: RequestContext) -> str:
        self.barrier.wait()
        return "together"


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=20) as response:
        return bytes(response.read())


def test_two_requests_are_served_at_the_same_time() -> None:
    service = RendezvousService()
    server = make_server(make_app(service, ApiSettings(), limits=LimitSettings()), "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1/t/build_info"
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            bodies = list(
                pool.map(lambda _: urllib.request.urlopen(url, timeout=20).read(), [1, 2])
            )
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
    assert all(b'"revision": "together"' in body for body in bodies)
    assert not service.barrier.broken


def test_request_lines_are_logged_without_url_signatures(caplog: pytest.LogCaptureFixture) -> None:
    server = make_server(
        make_app(MemoryService(), ApiSettings(), limits=LimitSettings()), "127.0.0.1", 0
    )
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1/t/build_info"
    caplog.set_level(logging.INFO, logger="thermik.api.wsgi_server")
    try:
        fetch(f"{url}?temp_url_sig=0123abcd&temp_url_expires=99")
        # The line is logged once the response is sent, perhaps after the client read it.
        deadline = time.monotonic() + 10
        while not logged(caplog) and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
    [line] = logged(caplog)
    assert "temp_url_sig=******&temp_url_expires=99" in line
    assert "0123abcd" not in line


def logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "build_info" in r.getMessage()]
