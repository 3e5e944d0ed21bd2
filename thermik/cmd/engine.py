"""``thermik-engine``: run the convergence engine until SIGTERM (or Ctrl-C).

    thermik-engine [--config-file F ...] [--config-dir D] [--log-file L] [--debug]

It resumes the stacks whose operation was interrupted, then converges whatever the database
asks of it. On SIGTERM/SIGINT it stops its actors cleanly: every stack stays as recorded, and
an engine started later resumes it. Configuration and logging: :mod:`thermik.cmd.service_config`.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType

from oslo_config import cfg

from thermik import errors
from thermik.cmd import service_config
from thermik.conf.settings import Settings

LOG = logging.getLogger("thermik.engine")


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
    stop = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        LOG.info("Signal %d received: stopping", signum)
        stop.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    try:
        from thermik.service import start_engine  # noqa: PLC0415 - only when running

        engine = start_engine(Settings.from_conf(conf))
    except (errors.ThermikError, cfg.Error) as exc:
        print(f"thermik-engine: {exc}", file=sys.stderr)
        return 1
    LOG.info("Engine running")
    try:
        stop.wait()
    finally:
        engine.close()
    LOG.info("Engine stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
