"""``thermik-api``: serve the Heat-v1-compatible REST API.

    thermik-api [--bind-host H] [--bind-port P] [--config-file F ...]

It is a composition root: it reads configuration, asks :mod:`thermik.service` for the
orchestration service and serves :func:`thermik.api.app.make_app` with a threaded WSGI server.
``application`` is the same app for uWSGI (config files from ``THERMIK_CONFIG_FILE``,
colon-separated).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import logging
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from oslo_config import cfg

from thermik import errors
from thermik.api.app import make_app
from thermik.api.auth import WsgiApp
from thermik.api.boundary import OrchestrationService
from thermik.api.wsgi_server import make_server
from thermik.conf import opts
from thermik.conf.settings import Settings
from thermik.delivery.loopback import wsgi_app

LOG = logging.getLogger("thermik.api")


def load_conf(config_files: Sequence[str]) -> cfg.ConfigOpts:
    """A fresh ``ConfigOpts`` with Thermik's options, read from ``config_files``."""
    conf = cfg.ConfigOpts()
    opts.register_opts(conf)
    conf(
        args=[], project="thermik", default_config_files=list(config_files), default_config_dirs=[]
    )
    return conf


def build_wsgi_app(conf: cfg.ConfigOpts) -> WsgiApp:
    """The API application wired to the orchestration service that ``conf`` describes."""
    settings = Settings.from_conf(conf)
    # COMPOSITION HOOK: thermik.service.build_api_service(settings) builds the engine-backed
    # OrchestrationService and the builtin delivery's URL handler. It is imported here, on
    # use, so that tests of the API layer run without the engine.
    composition_root = importlib.import_module("thermik.service")
    service: OrchestrationService
    service, delivery = composition_root.build_api_service(settings)
    return make_app(
        service,
        settings.api,
        limits=settings.limits,
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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``thermik-api`` console script."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    try:
        conf = load_conf(args.config_file)
        settings = Settings.from_conf(conf)
        app = build_wsgi_app(conf)
        host = args.bind_host or settings.api.bind_host
        port = settings.api.bind_port if args.bind_port is None else args.bind_port
        server = make_server(app, host, port)
    except (errors.ThermikError, cfg.Error, OSError) as exc:
        print(f"thermik-api: {exc}", file=sys.stderr)
        return 1
    LOG.info("Serving the Heat v1 API on http://%s:%d/v1", *server.server_address[:2])
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


@functools.cache
def _uwsgi_app() -> WsgiApp:
    files = [f for f in os.environ.get("THERMIK_CONFIG_FILE", "").split(":") if f]
    return build_wsgi_app(load_conf(files))


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    """WSGI entry point for uWSGI and other servers (built on the first request)."""
    return _uwsgi_app()(environ, start_response)


if __name__ == "__main__":
    sys.exit(main())
