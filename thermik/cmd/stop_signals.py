"""How a long-running Thermik process learns it should stop: SIGTERM or SIGINT set an event
that its main loop waits on, so the stop runs on the main thread, not in the handler."""

from __future__ import annotations

import logging
import signal
import threading
from types import FrameType


def stop_on_signals(log: logging.Logger) -> threading.Event:
    """An event set (and logged on ``log``) when the process gets SIGTERM or SIGINT."""
    stopping = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        log.info("Signal %d received: stopping", signum)
        stopping.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    return stopping
