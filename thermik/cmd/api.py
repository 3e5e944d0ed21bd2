"""``thermik-api``: serve the Heat-v1-compatible REST API.

    thermik-api [--bind-host H] [--bind-port P] [--config-file F ...]

It is a composition root: it reads configuration, asks :mod:`thermik.service` for the
orchestration service and serves :func:`thermik.api.app.make_app` with a threaded WSGI server.
On SIGTERM or SIGINT it stops accepting requests, lets the ones in progress finish, and closes
the service: the engine's actors stop cleanly (every stack stays as recorded, for an engine
started later to resume) and the engine deregisters. ``application`` is the same app for uWSGI
(config files from ``THERMIK_CONFIG_FILE``, colon-separated).
"""

from __future__ import annotations

import argparse
import atexit
import functools
import importlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from types import FrameType
from typing import Any, Protocol

from oslo_config import cfg

from thermik import errors
from thermik.api.app import make_app
from thermik.api.auth import WsgiApp
from thermik.api.boundary import OrchestrationService
from thermik.api.policy import Policy
from thermik.api.wsgi_server import ThreadingWSGIServer, make_server
from thermik.conf import opts, policies
from thermik.conf.settings import Settings
from thermik.delivery.loopback import Handler, wsgi_app

LOG = logging.getLogger("thermik.api")
#: How often the serving loop looks whether it was asked to stop.
STOP_POLL_SECONDS = 0.1


def load_conf(config_files: Sequence[str]) -> cfg.ConfigOpts:
    """A fresh ``ConfigOpts`` with Thermik's options, read from ``config_files``."""
    conf = cfg.ConfigOpts()
    opts.register_opts(conf)
    conf(
        args=[], project="thermik", default_config_files=list(config_files), default_config_dirs=[]
    )
    return conf


class ClosableService(OrchestrationService, Protocol):
    """The orchestration service as the composition root hands it out: closed at exit."""

    def close(self) -> None:
        """Stop the engine (runtime and delivery) and release the database."""


def build_service(settings: Settings) -> tuple[ClosableService, Handler | None]:
    """The engine-backed orchestration service (started; the caller closes it) and the
    builtin delivery's URL handler (None when the configured backend serves agents elsewhere).
    """
    # COMPOSITION HOOK: thermik.service.build_api_service(settings) is imported here, on use,
    # so that tests of the API layer run without the engine.
    composition_root = importlib.import_module("thermik.service")
    service: ClosableService
    delivery: Handler | None
    service, delivery = composition_root.build_api_service(settings)
    return service, delivery


def build_wsgi_app(
    conf: cfg.ConfigOpts, service: OrchestrationService, delivery: Handler | None = None
) -> WsgiApp:
    """The API application over ``service`` (mounting ``delivery`` under
    ``/delivery/v1``), authenticated as ``conf`` says."""
    settings = Settings.from_conf(conf)
    return make_app(
        service,
        settings.api,
        limits=settings.limits,
        policy=Policy(policies.build_enforcer(conf)),
        keystone_conf={"oslo_config_config": conf},
        delivery=None if delivery is None else wsgi_app(delivery),
    )


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="thermik-api", description=__doc__.splitlines()[0])
    parser.add_argument("--bind-host", help="Address to listen on (default: [api] bind_host).")
    parser.add_argument(
        "--bind-port", type=int, help="Port to listen on (default: [api] bind_port)."
    )
    parser.add_argument(
        "--config-file", action="append", default=[], help="oslo.config file (repeatable)."
    )
    return parser.parse_args(list(argv))


def stop_on_signals(server: ThreadingWSGIServer) -> None:
    """Make SIGTERM and SIGINT end ``serve_forever`` (from another thread: ``shutdown``
    waits for the serving loop, which runs in the thread the handler interrupts)."""

    def request_stop(signum: int, frame: FrameType | None) -> None:
        LOG.info("Signal %d received: stopping", signum)
        threading.Thread(target=server.shutdown, name="thermik-api-stop", daemon=True).start()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``thermik-api`` console script."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    try:
        conf = load_conf(args.config_file)
        settings = Settings.from_conf(conf)
        service, delivery = build_service(settings)
    except (errors.ThermikError, cfg.Error, OSError) as exc:
        print(f"thermik-api: {exc}", file=sys.stderr)
        return 1
    try:
        app = build_wsgi_app(conf, service, delivery)
        host = args.bind_host or settings.api.bind_host
        port = settings.api.bind_port if args.bind_port is None else args.bind_port
        server = make_server(app, host, port)
    except (errors.ThermikError, cfg.Error, OSError) as exc:
        service.close()
        print(f"thermik-api: {exc}", file=sys.stderr)
        return 1
    stop_on_signals(server)
    LOG.info("Serving the Heat v1 API on http://%s:%d/v1", *server.server_address[:2])
    try:
        server.serve_forever(poll_interval=STOP_POLL_SECONDS)
    finally:
        server.server_close()
        service.close()
    LOG.info("Stopped: the engine's actors are stopped and the database is closed")
    return 0


@functools.cache
def _uwsgi_app() -> WsgiApp:
    files = [f for f in os.environ.get("THERMIK_CONFIG_FILE", "").split(":") if f]
    conf = load_conf(files)
    service, delivery = build_service(Settings.from_conf(conf))
    # The WSGI server owns the process: close the service when the interpreter exits.
    atexit.register(service.close)
    return build_wsgi_app(conf, service, delivery)


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    """WSGI entry point for uWSGI and other servers (built on the first request)."""
    return _uwsgi_app()(environ, start_response)


if __name__ == "__main__":
    sys.exit(main())
