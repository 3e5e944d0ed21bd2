"""A small threaded WSGI server (standard library only) for tests and for the local engine
daemon's loopback API (:mod:`thermik.cmd.local_engine`), whose one caller is the CLI.

One thread per connection and no read timeout: a client that sends half a request holds its
thread until it closes. ``thermik-api`` serves with :mod:`thermik.api.production_server`.
"""

from __future__ import annotations

import logging
import socketserver
from typing import Any
from wsgiref import simple_server

from thermik.api.auth import WsgiApp
from thermik.delivery.signing import redacted

LOG = logging.getLogger(__name__)


class ThreadingWSGIServer(socketserver.ThreadingMixIn, simple_server.WSGIServer):
    """wsgiref's server, one thread per connection."""

    daemon_threads = True
    allow_reuse_address = True
    # socketserver's default backlog of 5 drops connections under a burst of clients, which
    # then wait a whole SYN retransmission (a second) before trying again.
    request_queue_size = 128


class LoggingHandler(simple_server.WSGIRequestHandler):
    """Request lines go to logging instead of stderr, without the signatures of capability
    URLs (an agent's metadata and signal URLs)."""

    def log_message(self, format: str, *args: Any) -> None:
        """Log one request line."""
        LOG.info("%s %s", self.address_string(), redacted(format % args))


def make_server(app: WsgiApp, host: str, port: int) -> ThreadingWSGIServer:
    """A server bound to ``host:port`` (port 0 picks a free one) serving ``app``."""
    server = simple_server.make_server(
        host, port, app, server_class=ThreadingWSGIServer, handler_class=LoggingHandler
    )
    assert isinstance(server, ThreadingWSGIServer)
    return server
