"""A WSGI application on a free loopback port, for tests and benchmarks that use real clients."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from thermik.api.auth import WsgiApp
from thermik.api.wsgi_server import make_server


@contextlib.contextmanager
def serve(app: WsgiApp) -> Iterator[str]:
    """``app`` served by the server ``thermik-api`` uses; yields ``http://127.0.0.1:P``."""
    server = make_server(app, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
