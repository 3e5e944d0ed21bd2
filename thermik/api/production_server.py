"""The HTTP server ``thermik-api`` runs: waitress, with read timeouts and bounded concurrency.

Waitress reads every request on one event loop and hands only complete requests (headers and
body) to its thread pool. A client that sends half a request therefore holds no thread, only
a connection, and the server closes that connection after ``[api] client_socket_timeout``
seconds of silence. At most ``[api] threads`` requests run at once; at most
``[api] max_connections`` connections are open, and further clients wait in the listen
backlog. gunicorn's gthread worker and uWSGI's own HTTP socket were measured to let half-sent
requests hold their worker threads (README, "Serving the API").
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable, Iterable
from typing import Any

from waitress import wasyncore
from waitress.server import BaseWSGIServer, MultiSocketServer, create_server

from thermik.api.auth import WsgiApp
from thermik.conf.settings import ApiSettings

LOG = logging.getLogger("thermik.api.access")
#: Connections the kernel queues for the server while it is at ``max_connections``.
BACKLOG = 1024
#: Longest pause between two sweeps for connections silent past the timeout.
MAX_SWEEP_SECONDS = 30


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket listening on ``host:port`` (port 0: a free one), IPv6 when ``host`` is."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, backlog=BACKLOG)


def access_logged(app: WsgiApp) -> WsgiApp:
    """``app`` logging one line per request: client, method, path and status. Never the
    query string: a delivery URL's signature is the credential of a capability URL."""

    def logged(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            LOG.info(
                "%s %s %s %s",
                environ.get("REMOTE_ADDR", "-"),
                environ.get("REQUEST_METHOD", "-"),
                environ.get("PATH_INFO", ""),
                status.split(" ", 1)[0],
            )
            return start_response(status, headers, exc_info)

        return app(environ, start)

    return logged


class ProductionServer:
    """``app`` served on a listening socket until :meth:`serve` is interrupted.

    ``max_body`` bounds what one request may send (waitress answers 413 past it, before the
    application sees the request); bodies past 512 KiB are buffered in a temporary file.
    """

    def __init__(self, app: WsgiApp, sock: socket.socket, api: ApiSettings, max_body: int) -> None:
        self.address: tuple[str, int] = sock.getsockname()[:2]
        self._channels: dict[int, socket.socket] = {}
        self._server: MultiSocketServer | BaseWSGIServer = create_server(
            access_logged(app),
            map=self._channels,
            sockets=[sock],
            threads=api.threads,
            channel_timeout=api.client_socket_timeout,
            # How often silent connections are looked for: a fraction of the timeout, so one
            # is closed at most half a timeout late.
            cleanup_interval=max(1, min(MAX_SWEEP_SECONDS, api.client_socket_timeout // 2)),
            connection_limit=api.max_connections,
            max_request_body_size=max_body,
            ident="thermik",
        )

    def serve(self) -> None:
        """Serve until SystemExit or KeyboardInterrupt is raised in this thread (a signal
        handler's way to stop it), then close: requests in progress get a few seconds to
        finish, then every connection and the listening socket are closed."""
        try:
            self._server.run()
        finally:
            self.close()

    def close(self) -> None:
        """Stop the threads, close every connection and the listening socket."""
        self._server.task_dispatcher.shutdown()
        wasyncore.close_all(self._channels)
