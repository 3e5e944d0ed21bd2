"""What ``thermik-api`` promises as a server: read timeouts, and URLs on the port it serves.

Half-sent requests (slowloris) must neither hold up other clients nor stay open past
``[api] client_socket_timeout``; builtin delivery URLs must name the port the process serves
(``--bind-port``), not ``[api] bind_port``.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from heatclient import client as heat_client

from tests.e2e.api_process import ApiProcess
from tests.e2e.support import server_stack

#: Half-sent connections opened at once (the reliability campaign held 300 for 120 s).
HALF_SENT = 300
READ_TIMEOUT = 2
#: The sweep for silent connections runs every READ_TIMEOUT / 2 seconds; the rest is slack
#: for a loaded machine.
CLOSED_WITHIN = READ_TIMEOUT * 4


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def api(tmp_path: Path) -> Iterator[ApiProcess]:
    """thermik-api with a short read timeout and few threads, configured to a port it does
    not serve (``--bind-port 0`` wins)."""
    config = tmp_path / "thermik.conf"
    config.write_text(
        f"[DEFAULT]\nstate_dir = {tmp_path / 'state'}\n"
        f"[api]\nbind_port = {free_port()}\nthreads = 4\n"
        f"client_socket_timeout = {READ_TIMEOUT}\n",
        encoding="utf-8",
    )
    process = ApiProcess(config)
    try:
        yield process
    finally:
        process.close()


def half_sent(port: int, number: int) -> list[socket.socket]:
    """``number`` connections, each stopped in the middle of its request: every other one
    in its headers, the rest in its body."""
    opened = []
    for n in range(number):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        if n % 2:
            sock.sendall(b"GET /v1/t1/stacks HTTP/1.1\r\nHost: x\r\n")
        else:
            sock.sendall(b"POST /v1/t1/stacks HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{")
        opened.append(sock)
    return opened


def closed_by_server(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        return sock.recv(4096) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def test_half_sent_requests_hold_no_thread_and_are_closed_after_the_read_timeout(
    api: ApiProcess,
) -> None:
    port = urlsplit(api.root).port
    assert port is not None
    held = half_sent(port, HALF_SENT)
    opened = time.monotonic()
    try:
        started = time.monotonic()
        client = http.client.HTTPConnection("127.0.0.1", port, timeout=READ_TIMEOUT)
        client.request("GET", "/v1/t1/stacks")
        answer = client.getresponse()
        assert (answer.status, json.loads(answer.read())) == (200, {"stacks": []})
        client.close()
        # Well before the half-sent ones time out: it did not wait for their threads.
        waited = time.monotonic() - started
        assert waited < READ_TIMEOUT * 0.75, f"a normal request waited {waited:.1f} s"

        open_ones = list(held)
        while open_ones and time.monotonic() - opened < CLOSED_WITHIN:
            open_ones = [sock for sock in open_ones if not closed_by_server(sock)]
            time.sleep(0.1)
        assert not open_ones, f"{len(open_ones)} of {HALF_SENT} still open"
        assert time.monotonic() - opened >= READ_TIMEOUT * 0.9, "closed before the timeout"
    finally:
        for sock in held:
            sock.close()


def test_delivery_urls_follow_the_port_served(api: ApiProcess) -> None:
    heat = heat_client.Client("1", endpoint=f"{api.root}/v1/t1", token="t")
    url = server_stack(heat, "srv")[1]
    assert urlsplit(url).port == urlsplit(api.root).port
    with urllib.request.urlopen(url, timeout=10) as response:
        document = json.loads(response.read())
    assert document["os-collect-config"]["request"]["metadata_url"] == url
