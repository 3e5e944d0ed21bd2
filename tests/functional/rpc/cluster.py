"""Service mode as processes: thermik-engine and thermik-api (``[api] engine = rpc``) on one
PostgreSQL database and one RabbitMQ virtual host, and a client of their REST API."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.e2e.api_process import ApiProcess
from thermik.conf.settings import DatabaseSettings
from thermik.persistence import migration
from thermik.persistence.crypto import SecretBox
from thermik.persistence.database import Database

THERMIK_ENGINE = Path(sys.executable).with_name("thermik-engine")
RUNNING = re.compile(r"Engine running \(engine id (\S+)\)")
TENANT = "rpc-tenant"
#: The cluster's encryption key.
KEY = SecretBox.generate_key()
WORKER = re.compile(r"Started API worker pid (\d+)")


def rabbit_unreachable(url: str) -> str | None:
    """Why the broker of ``url`` cannot be reached, or ``None`` when it can."""
    where = urlsplit(url)
    host, port = where.hostname or "127.0.0.1", where.port or 5672
    try:
        with socket.create_connection((host, port), timeout=3):
            return None
    except OSError as error:
        return f"RabbitMQ at {host}:{port} is not reachable: {error}"


@contextlib.contextmanager
def own_vhost(url: str) -> Iterator[tuple[str, str]]:
    """A transport URL on a virtual host of this run, and a name for its exchange/topics.

    The virtual host is made with ``rabbitmqctl`` when it is installed (and deleted
    afterwards); otherwise the default virtual host is used with the name's own topics."""
    name = f"thermik_rpc_{uuid.uuid4().hex[:8]}"
    ctl = shutil.which("rabbitmqctl")
    if ctl is None:
        yield url.rstrip("/") + "/", name
        return
    where = urlsplit(url)
    user = where.username or "guest"
    subprocess.run([ctl, "add_vhost", name], check=True, capture_output=True, timeout=60)
    try:
        subprocess.run(
            [ctl, "set_permissions", "-p", name, user, ".*", ".*", ".*"],
            check=True,
            capture_output=True,
            timeout=60,
        )
        yield f"{url.rstrip('/')}/{name}", name
    finally:
        subprocess.run([ctl, "delete_vhost", name], check=False, capture_output=True, timeout=60)


def migrate(url: str) -> None:
    """Bring the database at ``url`` to the latest schema."""
    database = Database(DatabaseSettings(url))
    try:
        migration.upgrade(database)
    finally:
        database.dispose()


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system, every thread) process ``pid`` used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    """A TCP port free on loopback now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


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

    def cpu_seconds(self) -> float:
        """The process's CPU time so far."""
        return cpu_seconds(self.process.pid)

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
    path: Path,
    database: str,
    transport: str,
    name: str,
    *,
    api: str = "",
    engine: str = "",
    default: str = "",
    call_timeout: int = 3,
) -> Path:
    """The configuration every process of the cluster shares (``api``, ``engine`` and
    ``default``: more lines of those sections, ``[delivery]`` lines included in ``api``'s after
    a blank line;
    ``call_timeout``: short, so that the tests' dead engines are answered for quickly)."""
    path.write_text(
        f"""[DEFAULT]
state_dir = {path.parent / "state"}
transport_url = {transport}
auth_encryption_key = {KEY}
{default}

[database]
connection = {database}
# Sized as a deployment on PostgreSQL's default max_connections (100) must be: up to 2 x 4
# connections in each of the up to seven processes (four engines, the API and its workers),
# with room left for the tests' own; the default 10 ran the 4-engine bench out of them.
pool_size = 4

[api]
engine = rpc
{api}

[rpc]
topic = {name}_engine
call_timeout = {call_timeout}

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


class ScaledCluster:
    """``engines`` thermik-engine processes and one thermik-api of ``workers`` pre-forked
    workers on port ``port``; the workers' pids."""

    def __init__(self, config: Path, port: int, engines: int = 3, workers: int = 2) -> None:
        self.config = config
        self.port = port
        self.size = engines
        self.worker_count = workers
        self.engines: list[EngineProcess] = []
        self.api: ApiProcess | None = None
        self.workers: list[int] = []

    def start(self) -> Api:
        """Start the engines, then the API; a client of it once every worker serves."""
        for _ in range(self.size):
            self.engines.append(EngineProcess(self.config))
        self.api = ApiProcess(self.config, "--bind-port", str(self.port))
        for _ in range(self.worker_count):
            found = WORKER.search(self.api.wait_for(WORKER.pattern))
            assert found is not None
            self.workers.append(int(found.group(1)))
        for _ in range(self.worker_count):
            self.api.wait_for(r"API worker pid \d+ serving")
        return Api(self.api)

    def engine_log(self) -> str:
        """Every engine's log so far."""
        return "".join(line for engine in self.engines for line in engine.log)

    def engine(self, engine_id: str) -> EngineProcess:
        """The engine process of that id."""
        return next(e for e in self.engines if e.engine_id == engine_id)

    def close(self) -> None:
        """Stop every process (the workers are resumed first); logs beside the config."""
        for pid in self.workers:
            resume(pid)
        if self.api is not None:
            if self.api.process.poll() is None:
                self.api.stop(signal.SIGTERM)  # the workers too: a kill would orphan them
            self.api.close()
            self.config.with_name("api.log").write_text(self.api.rest_of_log(), "utf-8")
        for number, engine in enumerate(self.engines):
            engine.close()
            self.config.with_name(f"engine{number}.log").write_text("".join(engine.log), "utf-8")


def resume(pid: int) -> None:
    """SIGCONT to ``pid`` (a stopped API worker), unless it is gone."""
    with contextlib.suppress(ProcessLookupError):  # a killed worker
        os.kill(pid, signal.SIGCONT)


class Api:
    """A JSON client of one thermik-api process (noauth, one tenant), or of any Heat v1 API
    at a root URL (``Api.at``)."""

    def __init__(self, process: ApiProcess) -> None:
        self.process = process
        self.base = f"{process.root}/v1/{TENANT}"

    @classmethod
    def at(cls, root: str, tenant: str) -> Api:
        """A client of the API at ``root`` (``http://host:port``) as ``tenant``, without a
        process of its own."""
        api = cls.__new__(cls)
        api.base = f"{root}/v1/{tenant}"
        return api

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
