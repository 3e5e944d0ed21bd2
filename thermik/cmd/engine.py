"""``thermik-engine``: run the convergence engine until SIGTERM (or Ctrl-C).

    thermik-engine [--config-file F ...]

It resumes the stacks whose operation was interrupted, then converges whatever the database
asks of it. On SIGTERM/SIGINT it stops its actors cleanly: every stack stays as recorded, and
an engine started later resumes it.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType

from oslo_config import cfg

from thermik import errors
from thermik.conf import settings as config

LOG = logging.getLogger("thermik.engine")


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="thermik-engine", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--config-file", action="append", default=[], help="oslo.config file (repeatable)."
    )
    return parser.parse_args(list(argv))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``thermik-engine`` console script."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    stop = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        LOG.info("Signal %d received: stopping", signum)
        stop.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    try:
        from thermik.service import start_engine  # noqa: PLC0415 - only when running

        engine = start_engine(config.load([], config_files=args.config_file))
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
