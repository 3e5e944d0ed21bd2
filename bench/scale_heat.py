"""Real Heat 27 as ``scale_bench.py --target heat`` runs it: heat-engine (``num_engine_workers``
worker processes under one master) and heat-api (uWSGI, as many processes as Thermik's API has
workers) on the same RabbitMQ and a fresh database on the same server, from the ``.venv-heat``
that ``tools/heat-up.sh`` installs.

No Keystone: heat-api's ``noauth`` pipeline accepts any request as project ``admin`` and
heat-engine uses Heat's own in-process fake Keystone client (``keystone_backend``, as Heat's
Keystone-less deployments did), with ``deferred_auth_method = password``. Nothing in the bench's
stacks talks to a cloud. The Heat venv has no PostgreSQL driver: its processes get Thermik's
venv's psycopg (a directory of links to it first on their ``PYTHONPATH``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import amqp
import psycopg
import psycopg_binary

from tests.functional.rpc.cluster import Api, cpu_seconds, free_port

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv-heat"
#: The tenant heat-api's noauth middleware puts every request in.
TENANT = "admin"
FAKE_KEYSTONE = "heat.engine.clients.os.keystone.fake_keystoneclient.FakeKeystoneClient"


def unavailable() -> str | None:
    """Why Heat cannot be run here, or ``None``."""
    if not (VENV / "bin" / "heat-engine").exists():
        return f"no Heat venv at {VENV}: run tools/heat-up.sh once (it installs it)"
    if uwsgi() is None:
        return "no uWSGI: run tools/heat-up.sh once (it builds it)"
    return None


def uwsgi() -> Path | None:
    """The uWSGI binary tools/realparts builds for every real service, if built."""
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "thermik"
    found = sorted(cache.glob("venv-uwsgi-*/bin/uwsgi"))
    return found[-1] if found else None


def heat_config(directory: Path, database: str, transport: str, name: str, workers: int) -> str:
    """heat.conf for ``workers`` engine workers on ``database`` and ``transport``; topics and
    exchange named ``name``."""
    return f"""[DEFAULT]
transport_url = {transport}
control_exchange = {name}
host = {name}
num_engine_workers = {workers}
convergence_engine = true
deferred_auth_method = password
keystone_backend = {FAKE_KEYSTONE}
max_stacks_per_tenant = 100000
max_resources_per_stack = 5000
heat_metadata_server_url = http://127.0.0.1:9/not-served
heat_waitcondition_server_url = http://127.0.0.1:9/not-served/v1/waitcondition
default_log_levels = amqp=WARN,amqplib=WARN,sqlalchemy=WARN,oslo.messaging=INFO,heat=INFO

[database]
connection = {database}
max_pool_size = 10

[paste_deploy]
api_paste_config = {VENV}/etc/heat/api-paste.ini
flavor = noauth

[oslo_policy]
# noauth gives every request the role admin only: the legacy rules accept it.
enforce_new_defaults = false
enforce_scope = false

[oslo_messaging_notifications]
driver = noop

[oslo_concurrency]
lock_path = {directory}/lock
"""


def _driver_path(directory: Path) -> Path:
    """A directory holding links to Thermik's psycopg, for Heat's ``PYTHONPATH``."""
    links = directory / "pg"
    links.mkdir(exist_ok=True)
    for module in (psycopg, psycopg_binary):
        package = Path(module.__file__ or "").parent
        # The metadata too: SQLAlchemy asks it for the driver's version.
        found = [package, *package.parent.glob(f"{package.name}.libs")]
        found += package.parent.glob(f"{package.name}-{module.__version__}.dist-info")
        for path in found:
            (links / path.name).symlink_to(path)
    return links


class HeatEngine:
    """One heat-engine master (``engine_id``: its pid) in a process group of its own, and its
    worker processes, as the bench measures and kills them."""

    def __init__(self, config: Path, env: dict[str, str], log: Path) -> None:
        with log.open("ab") as out:
            self.process = subprocess.Popen(
                [str(VENV / "bin" / "heat-engine"), "--config-file", str(config)],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        self.log = log

    def workers(self) -> list[int]:
        """The pids of the master's live worker processes."""
        return children(self.process.pid)

    def close(self) -> None:
        """SIGTERM to the group, SIGKILL after 30 s."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


class HeatCluster:
    """heat-engine of ``engines`` workers and heat-api of ``api_workers`` processes."""

    def __init__(self, directory: Path, engines: int, api_workers: int) -> None:
        self.directory = directory
        self.size = engines
        self.api_workers = api_workers
        self.engine: HeatEngine | None = None
        self.api_process: subprocess.Popen[bytes] | None = None
        self.dead: set[str] = set()
        self.port = free_port()
        self.api = Api.at(f"http://127.0.0.1:{self.port}", TENANT)

    @contextlib.contextmanager
    def running(self, database: str, transport: str, name: str) -> Iterator[HeatCluster]:
        """Heat up on ``database`` and ``transport`` until the block ends."""
        (self.directory / "lock").mkdir(exist_ok=True)
        config = self.directory / "heat.conf"
        config.write_text(
            heat_config(self.directory, database, transport, name, self.size), "utf-8"
        )
        env = {**os.environ, "PYTHONPATH": str(_driver_path(self.directory))}
        env.pop("VIRTUAL_ENV", None)
        synced = subprocess.run(
            [str(VENV / "bin" / "heat-manage"), "--config-file", str(config), "db_sync"],
            env=env,
            check=False,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if synced.returncode:
            raise RuntimeError(f"heat-manage db_sync failed: {synced.stderr[-3000:]}")
        try:
            self.engine = HeatEngine(config, env, self.directory / "heat-engine.log")
            self._start_api(config, env)
            self._wait_ready(transport)
            yield self
        finally:
            self.close()

    def _start_api(self, config: Path, env: dict[str, str]) -> None:
        binary = uwsgi()
        assert binary is not None
        api_env = {
            **env,
            "HEAT_CONFIG_FILE": str(config),
            "HEAT_LOG_FILE": str(self.directory / "heat-api.log"),
        }
        wrapper = ROOT / "tools" / "realparts" / "heat"  # heat_wsgi_api.py
        with (self.directory / "heat-api.out").open("ab") as out:
            self.api_process = subprocess.Popen(
                [
                    *(str(binary), "--http-socket", f"127.0.0.1:{self.port}"),
                    *("--virtualenv", str(VENV), "--pythonpath", str(wrapper)),
                    *("--pythonpath", env["PYTHONPATH"]),
                    *("--module", "heat_wsgi_api:application", "--master"),
                    *("--processes", str(self.api_workers), "--threads", "4"),
                    *("--lazy-apps", "--enable-threads", "--die-on-term", "--need-app"),
                    *("--buffer-size", "65535", "--add-header", "Connection: close"),
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=api_env,
                start_new_session=True,
            )

    def _wait_ready(self, transport: str, timeout: float = 300) -> None:
        """Until heat-api answers and every engine worker consumes the ``engine`` topic."""
        deadline = time.monotonic() + timeout
        while True:
            assert self.engine is not None
            assert self.api_process is not None
            processes = ((self.engine.process, "heat-engine"), (self.api_process, "heat-api"))
            for process, what in processes:
                if process.poll() is not None:
                    logs = sorted(self.directory.glob(f"{what}.*"))
                    tails = "".join(log.read_text("utf-8")[-2000:] for log in logs)
                    raise RuntimeError(f"{what} exited:\n{tails}")
            with contextlib.suppress(OSError):
                if self.api.request("GET", "/stacks")[0] == 200 and self._consumers(transport) >= (
                    self.size
                ):
                    return
            if time.monotonic() > deadline:
                raise RuntimeError(f"Heat is not ready after {timeout:.0f} s")
            time.sleep(0.5)

    @staticmethod
    def _consumers(transport: str) -> int:
        where = urlsplit(transport)
        connection = amqp.Connection(
            host=f"{where.hostname}:{where.port or 5672}",
            userid=where.username or "guest",
            password=where.password or "guest",
            virtual_host=where.path.lstrip("/") or "/",
        )
        connection.connect()
        try:
            channel = connection.channel()
            try:
                return int(channel.queue_declare(queue="engine", passive=True).consumer_count)
            except amqp.exceptions.NotFound:
                return 0
        finally:
            connection.close()

    def engine_cpu(self) -> dict[str, float]:
        """Engine worker pid -> its CPU seconds so far (the workers are the engines)."""
        assert self.engine is not None
        pids = [pid for pid in self.engine.workers() if str(pid) not in self.dead]
        return {str(pid): _cpu_or_zero(pid) for pid in pids}

    def api_cpu(self) -> float:
        """CPU seconds of heat-api's uWSGI master and workers so far."""
        assert self.api_process is not None
        pids = [self.api_process.pid, *children(self.api_process.pid)]
        return sum(_cpu_or_zero(pid) for pid in pids)

    def victim(self, running: dict[str, str]) -> tuple[str, list[str]]:
        """The first engine worker: every worker takes part in every running stack (Heat
        casts each resource's check to any worker), so all of them are its."""
        return min(self.engine_cpu(), key=int), sorted(running)

    def kill(self, engine_id: str) -> None:
        """SIGKILL to one worker (the master starts another in its place)."""
        os.kill(int(engine_id), signal.SIGKILL)
        self.dead.add(engine_id)

    def close(self) -> None:
        """Stop heat-api (SIGINT: uWSGI's SIGTERM is a slow graceful stop) and heat-engine."""
        if self.api_process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.api_process.pid, signal.SIGINT)
            try:
                self.api_process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.api_process.pid, signal.SIGKILL)
                self.api_process.wait()
        if self.engine is not None:
            self.engine.close()


def children(pid: int) -> list[int]:
    """The live child processes of ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
                if int(stat[1]) == pid:
                    found.append(int(entry))
    return sorted(found)


def _cpu_or_zero(pid: int) -> float:
    try:
        return cpu_seconds(pid)
    except OSError:  # gone meanwhile
        return 0.0
