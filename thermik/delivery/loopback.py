"""A tiny HTTP server on a free loopback port, for backends that serve agents themselves.

The fake Swift store and the builtin backend answer agent requests with a plain function
(method, path, query, body) -> :class:`HttpResponse`; this module puts such a function behind
``wsgiref`` so os-collect-config and heat-config-notify can reach it in tests and local runs.
Each request runs in its own thread.
"""

from __future__ import annotations

import dataclasses
import socketserver
import threading
import wsgiref.simple_server
from collections.abc import Callable, Iterable, Mapping
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qsl

StartResponse = Callable[[str, list[tuple[str, str]]], Any]


@dataclasses.dataclass(frozen=True, slots=True)
class HttpRequest:
    """What an agent sent; ``query`` holds the decoded query parameters."""

    method: str
    path: str
    query: Mapping[str, str]
    body: bytes = b""


@dataclasses.dataclass(frozen=True, slots=True)
class HttpResponse:
    """What the agent gets back."""

    status: int
    headers: Mapping[str, str] = dataclasses.field(default_factory=dict)
    body: bytes = b""


Handler = Callable[[HttpRequest], HttpResponse]


class _Server(socketserver.ThreadingMixIn, wsgiref.simple_server.WSGIServer):
    daemon_threads = True


class _QuietHandler(wsgiref.simple_server.WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Requests are not logged; the backend's own counters say what happened."""


def wsgi_app(handler: Handler) -> Callable[[dict[str, Any], StartResponse], Iterable[bytes]]:
    """A WSGI application calling ``handler`` for every request."""

    def app(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        request = HttpRequest(
            method=environ["REQUEST_METHOD"],
            path=environ.get("PATH_INFO", ""),
            query=dict(parse_qsl(environ.get("QUERY_STRING", ""))),
            body=environ["wsgi.input"].read(length) if length else b"",
        )
        response = handler(request)
        status = HTTPStatus(response.status)
        headers = [(k, v) for k, v in response.headers.items() if k.lower() != "content-length"]
        size = response.headers.get("Content-Length", str(len(response.body)))
        start_response(f"{status.value} {status.phrase}", [*headers, ("Content-Length", size)])
        return [response.body]

    return app


class LoopbackServer:
    """Serves one handler on ``host`` at ``port`` (0: a free one) until :meth:`stop`."""

    def __init__(self, handler: Handler, host: str = "127.0.0.1", port: int = 0) -> None:
        self._handler = handler
        self._host = host
        self._port = port
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> str:
        """Start listening; returns the base URL (``http://127.0.0.1:PORT``)."""
        self._httpd = wsgiref.simple_server.make_server(
            self._host,
            self._port,
            wsgi_app(self._handler),
            server_class=_Server,
            handler_class=_QuietHandler,
        )
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return f"http://{self._host}:{self._httpd.server_port}"

    def stop(self) -> None:
        """Stop listening and wait for the serving thread."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join()
            self._thread = None
