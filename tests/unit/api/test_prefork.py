"""The pre-fork supervisor of ``[api] workers``: a dead worker is replaced, SIGTERM stops all.

The supervisor runs in a process of its own (it owns its signal handlers and forks); each
worker records its pid in a directory and sleeps until it is stopped.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from thermik.api.prefork import describe

SUPERVISED = """
import os, sys, time
from pathlib import Path
from thermik.api.prefork import Supervisor

def work():
    Path(sys.argv[1], str(os.getpid())).touch()
    while True:
        time.sleep(1)

sys.exit(Supervisor(2, work).run())
"""


def pids(directory: Path, count: int, timeout: float = 30) -> set[int]:
    """The pids of the workers started so far, once there are ``count``."""
    deadline = time.monotonic() + timeout
    while True:
        found = {int(p.name) for p in directory.iterdir()}
        if len(found) >= count:
            return found
        assert time.monotonic() < deadline, f"only {found} started"
        time.sleep(0.05)


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.timeout(60)
def test_a_killed_worker_is_replaced_and_sigterm_stops_every_worker(tmp_path: Path) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", SUPERVISED, str(tmp_path)], stderr=subprocess.PIPE, text=True
    )
    try:
        first = pids(tmp_path, 2)
        victim = min(first)
        os.kill(victim, signal.SIGKILL)
        after = pids(tmp_path, 3)
        [replacement] = after - first
        assert not gone(replacement)
        parent.send_signal(signal.SIGTERM)
        assert parent.wait(timeout=30) == 0
        assert all(gone(pid) for pid in after)
    finally:
        if parent.poll() is None:
            parent.kill()
        _, err = parent.communicate()
    assert f"API worker pid {victim} killed by signal 9: replaced by pid {replacement}" in err


def test_wait_statuses_in_words() -> None:
    assert describe(signal.SIGKILL) == "killed by signal 9"
    assert describe(1 << 8) == "exited with 1"
