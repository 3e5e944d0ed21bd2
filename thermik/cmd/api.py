"""``thermik-api``: serve the Heat-v1-compatible REST API.

    thermik-api [--bind-host H] [--bind-port P] [--config-file F ...] [--config-dir D]
                [--log-file L] [--debug]

It is a composition root: it reads configuration (oslo.config's default discovery,
:mod:`thermik.cmd.service_config`), binds the listening socket, asks :mod:`thermik.service`
for the orchestration service (the builtin delivery hands out URLs on the port actually
bound) and serves :func:`thermik.api.app.make_app` with the production server
(:mod:`thermik.api.production_server`: read timeouts, bounded threads and connections).
On SIGTERM or SIGINT it stops accepting requests, gives the ones in progress a few seconds,
and closes the service: the engine's actors stop cleanly (every stack stays as recorded, for
an engine started later to resume) and the engine deregisters. ``application`` is the same
app for uWSGI (config files from ``THERMIK_CONFIG_FILE``, colon-separated, else the default
discovery).

With ``[api] workers = N`` (N > 1, service mode only) the process binds the socket and forks
N engine-less workers serving it (:mod:`thermik.api.prefork`): a dead worker is replaced,
SIGTERM stops them all.
"""

from __future__ import annotations

import atexit
import dataclasses
import functools
import importlib
import logging
import os
import signal
import socket
import sys
from collections.abc import Callable, Iterable, Sequence
from types import FrameType
from typing import Any, Protocol

from oslo_config import cfg

from thermik import errors
from thermik.api.app import make_app
from thermik.api.auth import WsgiApp
from thermik.api.boundary import OrchestrationService
from thermik.api.policy import Policy
from thermik.api.prefork import Supervisor
from thermik.api.production_server import ProductionServer, listen
from thermik.cmd import messaging, service_config
from thermik.conf import policies
from thermik.conf.settings import Settings
from thermik.delivery.loopback import Handler, wsgi_app

LOG = logging.getLogger("thermik.api")
PROG = "thermik-api"
#: Listening addresses that no client can connect to by name.
WILDCARDS = frozenset({"0.0.0.0", "::"})
CLI_OPTS: list[cfg.Opt] = [
    cfg.HostAddressOpt(
        "bind-host",
        dest="cli_bind_host",
        metavar="HOST",
        help="Address to listen on (default: [api] bind_host).",
    ),
    cfg.PortOpt(
        "bind-port",
        dest="cli_bind_port",
        metavar="PORT",
        help="Port to listen on, 0 for a free one (default: [api] bind_port).",
    ),
]


def load_conf(argv: Sequence[str]) -> cfg.ConfigOpts:
    """thermik-api's configuration: Thermik's options and its command line, parsed."""
    return service_config.parse(PROG, __doc__.splitlines()[0], argv, CLI_OPTS)


class ClosableService(OrchestrationService, Protocol):
    """The orchestration service as the composition root hands it out: closed at exit."""

    def close(self) -> None:
        """Stop the engine (runtime and delivery) and release the database."""


def build_service(
    settings: Settings, conf: cfg.ConfigOpts | None = None
) -> tuple[ClosableService, Handler | None]:
    """The orchestration service (started; the caller closes it) and the builtin delivery's
    URL handler (None when the configured backend serves agents elsewhere).

    With ``[api] engine = rpc`` (service mode, ``conf`` given) the service has no engine: it
    sends stack operations over ``[DEFAULT] transport_url`` to the thermik-engine processes,
    and serves builtin delivery URLs from the database (any worker serves any URL).
    """
    # COMPOSITION HOOK: thermik.service is imported here, on use, so that tests of the API
    # layer run without the engine.
    composition_root = importlib.import_module("thermik.service")
    service: ClosableService
    delivery: Handler | None
    if settings.api.engine == "rpc":
        if conf is None:
            raise errors.ConfigError("[api] engine = rpc needs the configuration's transport")
        service, delivery = composition_root.build_routed_service(
            settings, messaging.rpc_transport(conf)
        )
        return service, delivery
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


def served_settings(settings: Settings, sock: socket.socket) -> Settings:
    """``settings`` with ``[api] bind_host`` and ``bind_port`` where ``sock`` listens, so that
    builtin delivery URLs (without ``[delivery] public_url``) name the port actually served."""
    host, port = sock.getsockname()[:2]
    return dataclasses.replace(
        settings, api=dataclasses.replace(settings.api, bind_host=host, bind_port=port)
    )


def max_request_body(settings: Settings) -> int:
    """The largest body the server accepts: twice the largest the API itself accepts, so that
    the API answers a moderately oversized body with its own clear 413."""
    return 2 * max(settings.limits.max_json_body_size, settings.delivery.max_signal_size)


def stop_on_signals() -> None:
    """Make SIGTERM and SIGINT end :meth:`ProductionServer.serve` (which runs in the main
    thread, where signal handlers run); a second signal while closing is only logged."""

    def request_stop(signum: int, frame: FrameType | None) -> None:
        LOG.info("Signal %d received: stopping", signum)
        signal.signal(signal.SIGTERM, already_stopping)
        signal.signal(signal.SIGINT, already_stopping)
        raise SystemExit(0)

    def already_stopping(signum: int, frame: FrameType | None) -> None:
        LOG.info("Signal %d received: already stopping", signum)

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)


def warn_unreachable_urls(settings: Settings) -> None:
    """Warn when builtin delivery URLs would name a wildcard address (``0.0.0.0``)."""
    delivery, host = settings.delivery, settings.api.bind_host
    if delivery.backend == "builtin" and not delivery.public_url and host in WILDCARDS:
        LOG.warning(
            "Listening on %s without [delivery] public_url: builtin delivery URLs name "
            "that address, which agents cannot reach; set public_url",
            host,
        )


def bind(conf: cfg.ConfigOpts) -> socket.socket:
    """The listening socket on ``--bind-host``/``--bind-port`` (else ``[api]``'s).

    Raises:
        OSError: the address cannot be bound.
    """
    settings = Settings.from_conf(conf)
    host = conf.cli_bind_host or settings.api.bind_host
    port = settings.api.bind_port if conf.cli_bind_port is None else conf.cli_bind_port
    return listen(host, port)


def start(
    conf: cfg.ConfigOpts, sock: socket.socket | None = None
) -> tuple[ProductionServer, ClosableService]:
    """Bind (unless ``sock`` is the socket bound already), build the service on the bound
    port and the server over it.

    Raises:
        ThermikError, cfg.Error, OSError: the port cannot be bound or the service not built.
    """
    settings = Settings.from_conf(conf)
    sock = bind(conf) if sock is None else sock
    try:
        settings = served_settings(settings, sock)
        warn_unreachable_urls(settings)
        service, delivery = build_service(settings, conf)
    except BaseException:
        sock.close()
        raise
    try:
        app = build_wsgi_app(conf, service, delivery)
        server = ProductionServer(app, sock, settings.api, max_request_body(settings))
    except BaseException:
        service.close()
        sock.close()
        raise
    return server, service


def check_workers(conf: cfg.ConfigOpts, settings: Settings) -> None:
    """Refuse several workers that would each run an engine of their own, or that could not
    start (checked once here rather than by every worker, restarted in a loop).

    Raises:
        ConfigError: ``[api] workers`` > 1 without ``[api] engine = rpc`` or without
            ``[DEFAULT] transport_url``.
    """
    if settings.api.workers == 1:
        return
    if settings.api.engine != "rpc":
        raise errors.ConfigError(
            f"[api] workers = {settings.api.workers} needs [api] engine = rpc (service mode): "
            "with an embedded engine each worker would run an engine of its own"
        )
    if messaging.transport_url(conf) is None:
        raise errors.ConfigError(
            "service mode needs [DEFAULT] transport_url (e.g. rabbit://user:password@host:5672/)"
        )


def serve(conf: cfg.ConfigOpts, sock: socket.socket | None = None) -> int:
    """Build and serve one API process until SIGTERM or SIGINT; its exit status."""
    try:
        server, service = start(conf, sock)
    except (errors.ThermikError, cfg.Error, OSError) as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    stop_on_signals()
    if sock is None:
        log_serving(conf, server.address)
    else:
        LOG.info("API worker pid %d serving", os.getpid())
    try:
        server.serve()
    finally:
        service.close()
    if conf.api.engine == "rpc":
        LOG.info("Stopped: the database and the message bus are released")
    else:
        LOG.info("Stopped: the engine's actors are stopped and the database is closed")
    return 0


def log_serving(conf: cfg.ConfigOpts, address: tuple[str, int], workers: int = 1) -> None:
    """The line that says where the API is served (tests and operators wait for it)."""
    mode = "service mode (engines over RPC)" if conf.api.engine == "rpc" else "embedded engine"
    processes = f", {workers} workers" if workers > 1 else ""
    LOG.info("Serving the Heat v1 API on http://%s:%d/v1 (%s%s)", *address, mode, processes)


def serve_workers(conf: cfg.ConfigOpts, workers: int) -> int:
    """Bind, fork ``workers`` processes serving the socket and supervise them
    (:mod:`thermik.api.prefork`); the parent itself opens no connection of any kind."""
    try:
        sock = bind(conf)
    except OSError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    log_serving(conf, sock.getsockname()[:2], workers)
    supervisor = Supervisor(workers, lambda: serve(conf, sock))
    try:
        return supervisor.run()
    finally:
        sock.close()
        LOG.info("Stopped: every API worker ended")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``thermik-api`` console script."""
    try:
        conf = load_conf(sys.argv[1:] if argv is None else argv)
        service_config.setup_logging(conf)
        settings = Settings.from_conf(conf)
        check_workers(conf, settings)
    except (errors.ThermikError, cfg.Error) as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    if settings.api.workers > 1:
        return serve_workers(conf, settings.api.workers)
    return serve(conf)


@functools.cache
def _uwsgi_app() -> WsgiApp:
    files = [f for f in os.environ.get("THERMIK_CONFIG_FILE", "").split(":") if f]
    conf = load_conf([arg for path in files for arg in ("--config-file", path)])
    service_config.setup_logging(conf)
    service, delivery = build_service(Settings.from_conf(conf), conf)
    # The WSGI server owns the process: close the service when the interpreter exits.
    atexit.register(service.close)
    return build_wsgi_app(conf, service, delivery)


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    """WSGI entry point for uWSGI and other servers (built on the first request)."""
    return _uwsgi_app()(environ, start_response)


if __name__ == "__main__":
    sys.exit(main())
