"""A cloud service that fails on purpose, in front of the real one, for fault tests.

The loopback cloud is shared: its services are never stopped. Instead a test points an engine
at a copy of the cloud's clouds.yaml whose endpoint override for one service type leads to a
:class:`FaultyProxy` on a free loopback port. The proxy answers ``503`` while it is told to
(the first N API calls, or every request until :meth:`FaultyProxy.recover`), holds the first
``hold_posts`` POST requests ``hold_for`` seconds before it forwards them (a slow service: the
client stops waiting, the service still makes the resource), and otherwise forwards each
request to the real service unchanged (Host header included, so the version
documents the service returns link back through the proxy).
"""

from __future__ import annotations

import contextlib
import http.client
import http.server
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

import yaml

_HOP_BY_HOP = frozenset({"connection", "keep-alive", "transfer-encoding", "content-length"})


class FaultyProxy:
    """Forwards to ``target`` (``http://host:port``) unless it must fail the request."""

    def __init__(
        self,
        target: str,
        *,
        fail_first: int = 0,
        down: bool = False,
        hold_posts: int = 0,
        hold_for: float = 0.0,
    ) -> None:
        self.target = urllib.parse.urlsplit(target)
        self.fail_first = fail_first
        self.down = down
        self.hold_posts = hold_posts
        self.hold_for = hold_for
        self.held = 0
        self.failed = 0
        self.forwarded = 0
        self._lock = threading.Lock()
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def recover(self) -> None:
        """Forward every request from now on."""
        with self._lock:
            self.down, self.fail_first = False, 0

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _fails(self, path: str) -> bool:
        with self._lock:
            # ``fail_first`` fails API calls; the version document (``/``) is served, since a
            # connection that cannot read it at first contact stays on the unversioned
            # endpoint (see thermik.clients.calls.forget_proxy). ``down`` fails everything.
            if self.down or (path != "/" and self.failed < self.fail_first):
                self.failed += 1
                return True
            self.forwarded += 1
            return False

    def _holds(self, method: str) -> bool:
        with self._lock:
            if method == "POST" and self.held < self.hold_posts:
                self.held += 1
                return True
            return False

    def _handler(self) -> type[http.server.BaseHTTPRequestHandler]:
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                if proxy._fails(self.path):
                    self._answer(503, {"Content-Type": "text/plain"}, b"injected outage")
                    return
                if proxy._holds(self.command):
                    time.sleep(proxy.hold_for)
                upstream = http.client.HTTPConnection(
                    proxy.target.hostname or "127.0.0.1", proxy.target.port, timeout=60
                )
                try:
                    headers = {k: v for k, v in self.headers.items() if k.lower() != "connection"}
                    upstream.request(self.command, self.path, body=body, headers=headers)
                    response = upstream.getresponse()
                    data = response.read()
                    kept = {k: v for k, v in response.getheaders() if k.lower() not in _HOP_BY_HOP}
                    with contextlib.suppress(OSError):  # a held request's client is gone
                        self._answer(response.status, kept, data)
                finally:
                    upstream.close()

            def _answer(self, status: int, headers: dict[str, str], data: bytes) -> None:
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(data)
                self.close_connection = True

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _any  # noqa: N815

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


def clouds_yaml_via(source: Path, cloud: str, service_type: str, url: str, dest: Path) -> Path:
    """A copy of clouds.yaml ``source`` at ``dest`` whose ``cloud`` reaches ``service_type``
    at ``url`` (openstacksdk's ``<service>_endpoint_override``)."""
    document = yaml.safe_load(source.read_text())
    key = f"{service_type.replace('-', '_')}_endpoint_override"
    document["clouds"][cloud][key] = url
    dest.write_text(yaml.safe_dump(document))
    return dest
