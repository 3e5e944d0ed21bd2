"""The ``thermik-api`` console script as a process: serving heatclient, stopping on signals.

On SIGTERM or SIGINT it must close the service: the engine's actors stop, the engine
deregisters, the database is released, and whatever was running stays recorded so that the
next start resumes it.
"""

from __future__ import annotations

import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from heatclient import client as heat_client

from tests.e2e.support import TEMPLATE, outputs_of, settled
from thermik.conf.settings import Settings
from thermik.persistence.factory import open_store
from thermik.service import encryption_key

THERMIK_API = Path(sys.executable).with_name("thermik-api")
SERVING = re.compile(r"Serving the Heat v1 API on (http://\S+)/v1")
#: A create that takes a while: long enough to be interrupted, short enough to resume.
SLOW: dict[str, object] = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "sleeper": {"type": "OS::Heat::TestResource", "properties": {"wait_secs": 2}},
    },
}


#: Run ``argv[2:]`` with at most ``argv[1]`` bytes of address space (same process, same pid).
LIMITED = (
    "import os, resource, sys; limit = int(sys.argv[1]); "
    "resource.setrlimit(resource.RLIMIT_AS, (limit, limit)); os.execv(sys.argv[2], sys.argv[2:])"
)


class ApiProcess:
    """``thermik-api --bind-port 0`` on a config file (its address space limited to
    ``memory_limit`` bytes if given); its log lines as they come."""

    def __init__(self, config: Path, *, memory_limit: int | None = None) -> None:
        command = [str(THERMIK_API), "--config-file", str(config), "--bind-port", "0"]
        if memory_limit is not None:
            command = [sys.executable, "-c", LIMITED, str(memory_limit), *command]
        self.process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.log: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        serving = SERVING.search(self.wait_for(SERVING.pattern))
        assert serving is not None
        self.root = serving.group(1)

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.put(line)
        self.lines.put("")

    def wait_for(self, pattern: str, timeout: float = 30) -> str:
        """The first log line matching ``pattern`` (the test fails if none comes)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                raise AssertionError(f"no {pattern!r} in: {''.join(self.log)}") from None
            assert line, f"thermik-api exited: {''.join(self.log)}"
            self.log.append(line)
            if re.search(pattern, line):
                return line

    def rest_of_log(self) -> str:
        """Every log line so far, those not yet waited for included."""
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return "".join(self.log)
            self.log.append(line)

    def stop(self, signum: int) -> int:
        """Send ``signum``; the exit status."""
        self.process.send_signal(signum)
        return self.process.wait(timeout=30)

    def close(self) -> None:
        """Kill the process if it still runs; release its pipe."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self._reader.join(timeout=10)
        assert self.process.stderr is not None
        self.process.stderr.close()


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "thermik.conf"
    path.write_text(
        f"[DEFAULT]\nstate_dir = {tmp_path / 'state'}\n[api]\nauth_strategy = noauth\n",
        encoding="utf-8",
    )
    return path


@pytest.fixture
def running(config: Path) -> Iterator[ApiProcess]:
    api = ApiProcess(config)
    try:
        yield api
    finally:
        api.close()


def stop_while_creating(api: ApiProcess, signum: int, state_dir: Path) -> str:
    """Serve a create to completion and start a slow one, then stop ``api`` by ``signum``
    and check it closed the service; the slow stack's id."""
    heat = heat_client.Client("1", endpoint=f"{api.root}/v1/t1", token="t")
    done = heat.stacks.create(stack_name="done", template=TEMPLATE, parameters={"word": "w"})
    stack = settled(heat, done["stack"]["id"])
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    assert outputs_of(stack) == {"echo": "w"}
    slow_id = str(heat.stacks.create(stack_name="slow", template=SLOW)["stack"]["id"])
    assert heat.stacks.get(slow_id).stack_status == "CREATE_IN_PROGRESS"

    assert api.stop(signum) == 0, "".join(api.log)
    api.wait_for("Stopped: the engine's actors are stopped")
    assert "Traceback" not in "".join(api.log)

    settings = Settings.embedded(state_dir)
    store = open_store(settings.database, encryption_key(settings))
    try:
        assert store.list_engines() == [], "the engine did not deregister"
        stopped = store.get_stack(slow_id)
        assert (stopped.action, stopped.status) == ("CREATE", "IN_PROGRESS")
    finally:
        store.close()
    return slow_id


@pytest.mark.slow
def test_sigint_closes_the_service(running: ApiProcess, tmp_path: Path) -> None:
    stop_while_creating(running, signal.SIGINT, tmp_path / "state")


@pytest.mark.slow
def test_sigterm_closes_the_service_and_a_restart_resumes(
    running: ApiProcess, config: Path, tmp_path: Path
) -> None:
    slow_id = stop_while_creating(running, signal.SIGTERM, tmp_path / "state")
    again = ApiProcess(config)
    try:
        heat = heat_client.Client("1", endpoint=f"{again.root}/v1/t1", token="t")
        resumed = settled(heat, slow_id)
        assert resumed.stack_status == "CREATE_COMPLETE", resumed.stack_status_reason
        assert again.stop(signal.SIGTERM) == 0
    finally:
        again.close()
