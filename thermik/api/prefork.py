"""Several ``thermik-api`` worker processes on one listening socket (``[api] workers``).

The parent binds the socket, forks the workers and supervises them: it starts nothing else
(no database, no message bus, no thread), so every worker builds its own connections after
the fork. The kernel hands each new connection to one worker blocked in ``accept``; each
worker serves with :class:`~thermik.api.production_server.ProductionServer`, so the
half-sent-request protections hold in every worker. A worker that dies (crash, ``kill -9``)
is replaced; SIGTERM or SIGINT to the parent stops every worker (SIGTERM, then SIGKILL for
one that does not end within the grace period) and then the parent.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import time
from collections.abc import Callable
from types import FrameType

LOG = logging.getLogger("thermik.api")
#: Seconds workers get to finish after SIGTERM before they are killed.
STOP_GRACE = 20.0
#: A worker that dies sooner than this after its start is replaced only after a pause, so
#: one that cannot start (a database down) is not forked in a tight loop.
EARLY_DEATH = 5.0
RESTART_PAUSE = 1.0


class _Stop(Exception):
    """Raised in the parent by SIGTERM/SIGINT to leave ``waitpid``."""


def describe(status: int) -> str:
    """A worker's wait status in words (``killed by signal 9``, ``exited with 1``)."""
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exited with {os.waitstatus_to_exitcode(status)}"


class Supervisor:
    """Forks ``count`` workers running ``work()`` (its return value is the worker's exit
    status) and keeps that many alive until stopped."""

    def __init__(self, count: int, work: Callable[[], int]) -> None:
        self.count = count
        self._work = work
        #: pid -> monotonic start time, of the workers alive.
        self.workers: dict[int, float] = {}
        self.replaced = 0

    def _fork(self) -> int:
        pid = os.fork()
        if pid == 0:  # the worker: its own signal handlers, never back into the parent's loop
            code = 1
            try:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                code = self._work()
            except BaseException:  # a worker's failure ends the worker, not the parent
                LOG.exception("API worker %d failed", os.getpid())
            finally:
                logging.shutdown()
                os._exit(code)
        self.workers[pid] = time.monotonic()
        LOG.info("Started API worker pid %d", pid)
        return pid

    def run(self) -> int:
        """Start the workers, replace the ones that die, and stop them all on SIGTERM or
        SIGINT (then return 0)."""

        def stop(signum: int, frame: FrameType | None) -> None:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            LOG.info("Signal %d received: stopping the API workers", signum)
            raise _Stop

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        try:
            for _ in range(self.count):
                self._fork()
            while True:
                pid, status = os.waitpid(-1, 0)
                self._replace(pid, status)
        except _Stop:
            pass
        self.stop_all()
        return 0

    def _replace(self, pid: int, status: int) -> None:
        started = self.workers.pop(pid, None)
        if started is None:
            return
        if time.monotonic() - started < EARLY_DEATH:
            time.sleep(RESTART_PAUSE)
        new = self._fork()
        self.replaced += 1
        LOG.warning("API worker pid %d %s: replaced by pid %d", pid, describe(status), new)

    def stop_all(self, grace: float = STOP_GRACE) -> None:
        """SIGTERM every worker, wait up to ``grace`` seconds, SIGKILL the ones left."""
        for pid in self.workers:
            _send(pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while self.workers and time.monotonic() < deadline:
            self._reap()
            time.sleep(0.05)
        for pid in list(self.workers):
            LOG.warning("API worker pid %d did not stop within %g s: killed", pid, grace)
            _send(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            self.workers.pop(pid, None)

    def _reap(self) -> None:
        for pid in list(self.workers):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                self.workers.pop(pid, None)
                LOG.info("API worker pid %d stopped (%s)", pid, describe(status))


def _send(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # already gone; reaped below
        os.kill(pid, signum)
