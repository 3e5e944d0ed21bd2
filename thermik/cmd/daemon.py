"""The ``thermik`` CLI's side of the local engine daemon: find it, start it, stop it.

:func:`ensure` returns the address of the state directory's running daemon, starting one
(detached, :mod:`thermik.cmd.local_engine`) when none answers. Starting is serialised by a lock
file, so two commands started at once get one daemon. A command that names a cloud
(``--os-cloud``, or the ``OS_*`` variables) and finds a daemon started without one stops it
cleanly and starts one with that cloud's credentials: the stacks it drove resume in the new one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from thermik.clients import local_daemon as local
from thermik.cmd.local_engine import LOG_FILE
from thermik.errors import EngineUnavailable, ThermikError

#: Serialises daemon starts under the state directory.
START_LOCK = "engine.start.lock"
#: How long a command waits for a daemon to start, and to stop.
START_TIMEOUT = 60.0
STOP_TIMEOUT = 90.0
#: How long one call to the daemon's API may take (a create with a large template).
CALL_TIMEOUT = 120.0


@dataclasses.dataclass(frozen=True, slots=True)
class Launch:
    """How to start a daemon: the state directory, the configuration files and the cloud of
    the command starting it (the daemon reads them as the command does)."""

    state_dir: Path
    config_files: tuple[str, ...] = ()
    cloud: str | None = None

    def argv(self) -> list[str]:
        """The daemon's command line."""
        words = [sys.executable, "-m", "thermik.cmd.local_engine"]
        for path in self.config_files:
            words += ["--config-file", str(Path(path).resolve())]
        if self.cloud:
            words += ["--os-cloud", self.cloud]
        return words


def address_file(state_dir: Path) -> Path:
    """Where the daemon of ``state_dir`` records its address."""
    return state_dir / local.ENGINE_FILE


def running(state_dir: Path) -> tuple[local.EngineAddress, dict[str, Any]] | None:
    """The running daemon's address and its ``ping`` answer; None when none answers."""
    address = local.EngineAddress.read(address_file(state_dir))
    if address is None:
        return None
    try:
        info = local.manage(address, local.PING, timeout=10.0)
    except (ConnectionError, ThermikError):
        return None
    return (address, info) if isinstance(info, dict) else None


def ensure(launch: Launch) -> local.EngineAddress:
    """The address of the state directory's daemon, started when none answers (or
    restarted with the cloud the command names, when it has none).

    Raises:
        EngineUnavailable: the daemon did not start (the message quotes its log).
    """
    found = running(launch.state_dir)
    if found is not None and _fits(found[0], launch):
        return found[0]
    with _start_lock(launch.state_dir):
        found = running(launch.state_dir)
        if found is not None and _fits(found[0], launch):
            return found[0]
        if found is not None:
            stop(launch.state_dir)
        return _start(launch)


def _fits(address: local.EngineAddress, launch: Launch) -> bool:
    """A daemon without a cloud cannot act for a command that names one."""
    return launch.cloud is None or address.cloud is not None


@contextlib.contextmanager
def _start_lock(state_dir: Path) -> Iterator[None]:
    state_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(state_dir / START_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _start(launch: Launch) -> local.EngineAddress:
    log = launch.state_dir / LOG_FILE
    with open(log, "ab") as out:
        process = subprocess.Popen(
            launch.argv(),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=launch.state_dir,
            start_new_session=True,
            close_fds=True,
        )
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        found = running(launch.state_dir)
        if found is not None and found[0].pid == process.pid:
            # Reaped by init once this command exits; Popen need not wait for it.
            process.returncode = 0
            return found[0]
        if process.poll() is not None:
            break
        time.sleep(0.05)
    holder = local.EngineAddress.read(address_file(launch.state_dir))
    if holder is not None and holder.pid != process.pid and _alive(holder.pid):
        # An earlier release's daemon holds the directory and speaks another protocol.
        raise EngineUnavailable(
            f"Another engine daemon (pid {holder.pid}) holds {launch.state_dir} but does not "
            f"answer this release's calls: stop it with 'kill -TERM {holder.pid}' (it stops "
            "cleanly, and its stacks resume in the next daemon), then run the command again"
        )
    raise EngineUnavailable(f"The local engine daemon did not start (see {log}): {_tail(log)}")


def _tail(log: Path) -> str:
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return "no log"
    return lines[-1] if lines else "no log"


def stop(state_dir: Path) -> int | None:
    """Stop the daemon of ``state_dir`` cleanly and wait until it exited; its pid, or None
    when none was running.

    Raises:
        EngineUnavailable: it did not exit within the stop timeout.
    """
    found = running(state_dir)
    if found is None:
        return None
    address = found[0]
    with contextlib.suppress(ConnectionError, ThermikError):
        local.manage(address, local.STOP, timeout=10.0)
    deadline = time.monotonic() + STOP_TIMEOUT
    while time.monotonic() < deadline:
        if not _alive(address.pid):
            return int(address.pid)
        time.sleep(0.1)
    raise EngineUnavailable(
        f"The local engine daemon (pid {address.pid}) did not stop within {STOP_TIMEOUT:g} s"
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A daemon this process started and that exited is a zombie until reaped.
    with contextlib.suppress(ChildProcessError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    return True


def api_for(launch: Launch, project: str, user: str | None) -> local.DaemonApi:
    """The daemon's REST API (started when needed) as ``user`` of ``project``, starting it
    again if it dies."""
    return local.DaemonApi(
        ensure(launch),
        project,
        user=user,
        timeout=CALL_TIMEOUT,
        reconnect=lambda: ensure(launch),
    )
