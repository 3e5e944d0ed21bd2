"""``thermik-engine``: run the convergence engine until SIGTERM (or Ctrl-C).

    thermik-engine [--config-file F ...] [--config-dir D] [--log-file L] [--debug]

It resumes the stacks whose operation was interrupted, then converges whatever the database
asks of it. With ``[DEFAULT] transport_url`` set it runs in service mode: it serves the engines'
RPC API (:mod:`thermik.rpc`) for the engine-less ``thermik-api`` (``[api] engine = rpc``) and
sends Heat's stack notifications when ``[oslo_messaging_notifications] driver`` is set. On
SIGTERM/SIGINT it stops taking requests, then stops its actors cleanly: every stack stays as
recorded, and an engine started later resumes it. Configuration and logging:
:mod:`thermik.cmd.service_config`.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from oslo_config import cfg

from thermik import errors
from thermik.cmd import messaging, service_config
from thermik.cmd.stop_signals import stop_on_signals
from thermik.conf.settings import Settings

if TYPE_CHECKING:
    from thermik.rpc.notifications import StackNotifier
    from thermik.rpc.server import RpcServer
    from thermik.service import Engine

LOG = logging.getLogger("thermik.engine")


class RunningEngine:
    """The engine with what service mode adds: its RPC server and notifier."""

    def __init__(
        self, engine: Engine, server: RpcServer | None, notifier: StackNotifier | None
    ) -> None:
        self.engine = engine
        self.server = server
        self.notifier = notifier

    def close(self) -> None:
        """Stop taking requests, stop the engine, then send the notifications still queued."""
        try:
            if self.server is not None:
                self.server.stop()
        finally:
            try:
                self.engine.close()
            finally:
                if self.notifier is not None:
                    self.notifier.close()


def start(conf: cfg.ConfigOpts) -> RunningEngine:
    """Start the engine, and in service mode its notifier and RPC server.

    Raises:
        ThermikError, cfg.Error: the configuration cannot be used, or the engine not started.
    """
    from thermik.service import serve_rpc, start_engine  # noqa: PLC0415 - only when running

    settings = Settings.from_conf(conf)
    transport = messaging.rpc_transport(conf) if messaging.transport_url(conf) else None
    if transport is None:
        LOG.info("No [DEFAULT] transport_url: serving no RPC (not in service mode)")
    notifier = None
    try:
        notifier = messaging.stack_notifier(conf)
        observer = None if notifier is None else notifier.stack_changed
        # In service mode the API workers serve builtin delivery URLs (from the database),
        # and children of this engine's stacks may start on the other engines.
        engine = start_engine(
            settings,
            serve_urls=transport is None,
            stack_observer=observer,
            peers=None if transport is None else messaging.rpc_transport(conf),
        )
    except BaseException:
        if notifier is not None:
            notifier.close()
        if transport is not None:
            transport.cleanup()
        raise
    server = None
    if transport is not None:
        try:
            server = serve_rpc(engine, transport, settings)
        except BaseException:
            transport.cleanup()
            RunningEngine(engine, None, notifier).close()
            raise
    return RunningEngine(engine, server, notifier)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``thermik-engine`` console script."""
    try:
        conf = service_config.parse(
            "thermik-engine", __doc__.splitlines()[0], sys.argv[1:] if argv is None else argv
        )
        service_config.setup_logging(conf)
    except cfg.Error as exc:
        print(f"thermik-engine: {exc}", file=sys.stderr)
        return 1
    stop = stop_on_signals(LOG)
    try:
        running = start(conf)
    except (errors.ThermikError, cfg.Error) as exc:
        print(f"thermik-engine: {exc}", file=sys.stderr)
        return 1
    LOG.info("Engine running (engine id %s)", running.engine.runtime.engine_id)
    try:
        stop.wait()
    finally:
        running.close()
    LOG.info("Engine stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
