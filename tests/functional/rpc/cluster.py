"""Service mode as processes: thermik-engine and thermik-api (``[api] engine = rpc``) on one
PostgreSQL database and one RabbitMQ virtual host, and a client of their REST API."""

from __future__ import annotations

import json
import queue
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.e2e.api_process import ApiProcess
from thermik.persistence.crypto import SecretBox

THERMIK_ENGINE = Path(sys.executable).with_name("thermik-engine")
RUNNING = re.compile(r"Engine running \(engine id (\S+)\)")
TENANT = "rpc-tenant"
#: The cluster's encryption key.
KEY = SecretBox.generate_key()


class EngineProcess:
    """``thermik-engine`` on a config file; its engine id once it runs."""

    def __init__(self, config: Path) -> None:
        self.process = subprocess.Popen(
            [str(THERMIK_ENGINE), "--config-file", str(config)],
            stderr=subprocess.PIPE,
            text=True,
        )
        self.log: list[str] = []
        self.lines: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.engine_id = self._wait_running()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.log.append(line)
            self.lines.put(line)
        self.lines.put("")

    def _wait_running(self, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                raise AssertionError(f"engine not running: {''.join(self.log)}") from None
            assert line, f"thermik-engine exited: {''.join(self.log)}"
            found = RUNNING.search(line)
            if found:
                return found.group(1)

    def kill(self) -> None:
        """kill -9."""
        self.process.kill()
        self.process.wait()

    def close(self) -> None:
        """SIGTERM, then kill if it does not end."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._reader.join(timeout=10)
        assert self.process.stderr is not None
        self.process.stderr.close()


def write_config(
    path: Path, database: str, transport: str, name: str, *, api: str = "", engine: str = ""
) -> Path:
    """The configuration every process of the cluster shares (``api`` and ``engine``: more
    lines of those sections, ``[delivery]`` lines included in ``api``'s after a blank line)."""
    path.write_text(
        f"""[DEFAULT]
state_dir = {path.parent / "state"}
transport_url = {transport}
auth_encryption_key = {KEY}

[database]
connection = {database}

[api]
engine = rpc
{api}

[rpc]
topic = {name}_engine
call_timeout = 3

[engine]
lease_seconds = 6
heartbeat_interval = 1
{engine}

[oslo_messaging_notifications]
driver = messagingv2
topics = {name}_notifications
""",
        encoding="utf-8",
    )
    return path


class Api:
    """A JSON client of one thermik-api process (noauth, one tenant)."""

    def __init__(self, process: ApiProcess) -> None:
        self.process = process
        self.base = f"{process.root}/v1/{TENANT}"

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """One request; the status and the decoded body (errors are answers too)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base + path,
            data=data,
            method=method,
            headers={"Content-Type": "application/json", "X-Auth-Token": "x"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        return status, json.loads(raw) if raw else None


def template(create_secs: float = 0, update_secs: float = 0, value: str = "v1") -> dict[str, Any]:
    """Two test resources taking their time."""
    waits = {"create": create_secs, "update": update_secs, "delete": 0}
    resource = {
        "type": "OS::Heat::TestResource",
        "properties": {"value": value, "action_wait_secs": waits},
    }
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"first": resource, "second": resource},
    }


def wait_until(check: Callable[[], Any], timeout: float, what: str) -> Any:
    """``check()`` once it is truthy; the test fails after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.25)
