"""Running the ``thermik`` console script against one state directory, as several terminals
do, with the state directory's engine daemon behind them: real processes, no mocks."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from tests.unit.cmd.cli_support import Result

#: How long a test waits for a stack to settle.
DEADLINE = 120.0
THERMIK = str(Path(sys.executable).parent / "thermik")


def slow_template(create_secs: float, count: int = 2) -> str:
    """A chain of ``count`` TestResources whose creates take ``create_secs`` each."""
    lines = ["heat_template_version: 2018-08-31", "resources:"]
    for index in range(count):
        lines += [
            f"  r{index}:",
            "    type: OS::Heat::TestResource",
            "    properties:",
            f"      value: v{index}",
            f"      action_wait_secs: {{create: {create_secs}}}",
        ]
        if index:
            lines.append(f"    depends_on: r{index - 1}")
    return "\n".join(lines) + "\n"


SERVER_TEMPLATE = """\
heat_template_version: 2018-08-31
resources:
  server:
    type: OS::Heat::DeployedServer
    properties: {software_config_transport: POLL_TEMP_URL}
    metadata: {role: web}
outputs:
  agent:
    value: {get_attr: [server, os_collect_config]}
"""


class Terminal:
    """``thermik --config-file C ...`` in its own process, as typed in a terminal."""

    def __init__(self, root: Path, *, idle_timeout: int = 60) -> None:
        self.root = root
        self.state = root / "state"
        self.config = root / "thermik.conf"
        self.config.write_text(
            f"[DEFAULT]\nstate_dir = {self.state}\n"
            f"[engine]\nlocal_daemon_idle_timeout = {idle_timeout}\n"
            "lease_seconds = 5\nheartbeat_interval = 1\n",
            encoding="utf-8",
        )

    def argv(self, *args: str) -> list[str]:
        """The command line of ``thermik ARGS``."""
        return [THERMIK, "--config-file", str(self.config), *args]

    def run(self, *args: str, timeout: float = DEADLINE) -> Result:
        """Run ``thermik ARGS`` to its end."""
        done = subprocess.run(
            self.argv(*args),
            capture_output=True,
            text=True,
            cwd=self.root,
            timeout=timeout,
            check=False,
        )
        return Result(done.returncode, done.stdout, done.stderr)

    def start(self, *args: str) -> subprocess.Popen[str]:
        """Start ``thermik ARGS`` and let it run."""
        return subprocess.Popen(
            self.argv(*args),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=self.root,
        )

    def daemon_pid(self) -> int | None:
        """The pid the daemon recorded, if any."""
        try:
            return int(json.loads((self.state / "engine.json").read_text())["pid"])
        except (OSError, ValueError, KeyError):
            return None

    def stack_state(self, name: str) -> str | None:
        """The stack's ``ACTION_STATUS`` read from the database file, no thermik involved."""
        path = self.state / "thermik.sqlite"
        if not path.exists():
            return None
        try:
            with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
                row = db.execute(
                    "SELECT action, status FROM stack WHERE name = ? ORDER BY created_at DESC",
                    (name,),
                ).fetchone()
        except sqlite3.OperationalError:  # not migrated yet
            return None
        return None if row is None else f"{row[0]}_{row[1]}"

    def settles(self, name: str, deadline: float = DEADLINE) -> str | None:
        """The stack's state once it is no longer IN_PROGRESS (read from the database only:
        no command runs meanwhile); its last state when ``deadline`` passed."""
        end = time.monotonic() + deadline
        state = self.stack_state(name)
        while time.monotonic() < end:
            state = self.stack_state(name)
            if state is not None and not state.endswith("_IN_PROGRESS"):
                return state
            time.sleep(0.2)
        return state


def alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(ChildProcessError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(")")[-1].split()[0] == "Z")


@contextlib.contextmanager
def terminal(root: Path, **kwargs: int) -> Iterator[Terminal]:
    """A :class:`Terminal` whose daemon is stopped (killed if it will not stop) at the end."""
    term = Terminal(root, **kwargs)
    try:
        yield term
    finally:
        pid = term.daemon_pid()
        term.run("engine", "stop", timeout=120)
        if pid is not None and alive(pid):
            os.kill(pid, signal.SIGKILL)
