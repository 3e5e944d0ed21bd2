"""Handles on the real services that tools/ starts on loopback (Swift, Zaqar, the guest agent).

Each service is described by ``THERMIK_*`` environment variables, which tools/run-tests.sh
exports from the env files the ``tools/*-up.sh`` scripts write (``.state/<service>.env``). When
the variables are not set, the env file is read directly, so a developer who ran
``tools/services-up.sh`` can run pytest without sourcing anything. A missing or silent service
skips the test with the reason, or fails it when ``THERMIK_REQUIRE_SERVICES=1`` (CI).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import signal
import subprocess
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn
from urllib.parse import urlsplit

import pytest
from swiftclient import client as swift
from swiftclient.utils import generate_temp_url

from thermik.conf.settings import SwiftSettings

ROOT = Path(__file__).resolve().parents[2]


def unavailable(reason: str) -> NoReturn:
    """Skip for a missing service, or fail when the run requires every service."""
    if os.environ.get("THERMIK_REQUIRE_SERVICES") == "1":
        pytest.fail(f"{reason} (THERMIK_REQUIRE_SERVICES=1)", pytrace=False)
    pytest.skip(reason)


def state_dir() -> Path:
    """Where the tools/*-up.sh scripts keep their state and env files."""
    return Path(os.environ.get("THERMIK_STATE_DIR", ROOT / ".state"))


def read_env_file(path: Path) -> dict[str, str]:
    """Parse the ``export KEY=VALUE`` lines a tools/*-up.sh script writes."""
    values = {}
    for line in path.read_text().splitlines():
        key, sep, value = line.removeprefix("export ").partition("=")
        if sep and key.strip():
            values[key.strip()] = value.strip().strip("'\"")
    return values


def service_settings(
    service: str, keys: tuple[str, ...], start: str = "tools/services-up.sh"
) -> dict[str, str]:
    """The variables ``keys`` of ``service``: from the environment, else from its env file.

    ``start`` is the command that brings the service up, named in the skip message.
    """
    if all(os.environ.get(key) for key in keys):
        return {key: os.environ[key] for key in keys}
    env_file = state_dir() / f"{service}.env"
    found = read_env_file(env_file) if env_file.is_file() else {}
    missing = [key for key in keys if not found.get(key)]
    if missing:
        unavailable(
            f"{service} is not running: {missing[0]} is neither set nor in {env_file}; "
            f"start it with {start} (or THERMIK_REAL_SERVICES=1 tools/run-tests.sh)"
        )
    return {key: found[key] for key in keys}


def http(
    method: str, url: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One plain HTTP request; returns status, headers and body (errors are answers too)."""
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


@dataclasses.dataclass(frozen=True)
class SwiftEnv:
    """The loopback Swift: its tempauth URL, the AUTH_test owner and the reseller admin."""

    auth_url: str
    user: str
    key: str
    reseller_user: str
    reseller_key: str

    @classmethod
    def from_settings(cls) -> SwiftEnv:
        s = service_settings(
            "swift",
            (
                "THERMIK_SWIFT_AUTH_URL",
                "THERMIK_SWIFT_USER",
                "THERMIK_SWIFT_KEY",
                "THERMIK_SWIFT_RESELLER_USER",
                "THERMIK_SWIFT_RESELLER_KEY",
            ),
        )
        env = cls(
            s["THERMIK_SWIFT_AUTH_URL"],
            s["THERMIK_SWIFT_USER"],
            s["THERMIK_SWIFT_KEY"],
            s["THERMIK_SWIFT_RESELLER_USER"],
            s["THERMIK_SWIFT_RESELLER_KEY"],
        )
        try:
            swift.get_auth(env.auth_url, env.user, env.key, auth_version="1")
        except Exception as error:  # any failure to log in means the service is not usable
            unavailable(f"swift at {env.auth_url} does not answer: {error}")
        return env

    def delivery(self, container_prefix: str) -> SwiftSettings:
        """Swift delivery settings in the AUTH_test account, under containers named with
        ``container_prefix``."""
        return SwiftSettings(
            auth_url=self.auth_url,
            auth_version="1",
            username=self.user,
            password=self.key,
            container_prefix=container_prefix,
        )

    def new_account(self) -> SwiftAccount:
        """A fresh ``AUTH_<random>`` account (made by the reseller admin) with a TempURL key."""
        admin_url, token = swift.get_auth(
            self.auth_url, self.reseller_user, self.reseller_key, auth_version="1"
        )
        storage_url = f"{admin_url.rsplit('/', 1)[0]}/AUTH_t{uuid.uuid4().hex}"
        temp_url_key = uuid.uuid4().hex
        # The first container write creates the account; only then does it take metadata.
        swift.put_container(storage_url, token, "setup")
        swift.post_account(storage_url, token, {"X-Account-Meta-Temp-Url-Key": temp_url_key})
        return SwiftAccount(storage_url, token, temp_url_key)


@dataclasses.dataclass(frozen=True)
class SwiftAccount:
    """One Swift account a test owns: where it is, a token for it and its TempURL key."""

    storage_url: str
    token: str
    temp_url_key: str

    def connection(self) -> swift.Connection:
        return swift.Connection(preauthurl=self.storage_url, preauthtoken=self.token)

    def temp_url(self, container: str, obj: str, method: str, seconds: int = 3600) -> str:
        """An absolute TempURL allowing ``method`` on one object (GET also allows HEAD)."""
        parts = urlsplit(self.storage_url)
        path = f"{parts.path}/{container}/{obj}"
        signed = generate_temp_url(path, seconds, self.temp_url_key, method)
        return f"{parts.scheme}://{parts.netloc}{signed}"


@dataclasses.dataclass(frozen=True)
class ZaqarEnv:
    """The loopback Zaqar (v2 API, no Keystone: the X-Project-ID header names the project)."""

    url: str

    @classmethod
    def from_settings(cls) -> ZaqarEnv:
        env = cls(service_settings("zaqar", ("THERMIK_ZAQAR_URL",))["THERMIK_ZAQAR_URL"])
        try:
            status, _, _ = http("GET", f"{env.url}/v2/ping", headers=env.headers("ping"))
        except OSError as error:
            unavailable(f"zaqar at {env.url} does not answer: {error}")
        if status != 204:
            unavailable(f"zaqar at {env.url} answers /v2/ping with {status}")
        return env

    @staticmethod
    def headers(project: str) -> dict[str, str]:
        """What every raw v2 request needs: a UUID Client-ID and the project."""
        return {
            "Client-ID": str(uuid.uuid4()),
            "X-Project-ID": project,
            "Content-Type": "application/json",
        }


@dataclasses.dataclass(frozen=True)
class ZaqarKeystoneEnv:
    """The loopback Zaqar behind the loopback cloud's Keystone (tools/zaqar-keystone-up.sh,
    started once the cloud is up): a queue belongs to the project of the caller's token."""

    url: str

    @classmethod
    def from_settings(cls) -> ZaqarKeystoneEnv:
        key = "THERMIK_ZAQAR_KEYSTONE_URL"
        env = cls(service_settings("zaqar", (key,), "tools/zaqar-keystone-up.sh")[key])
        try:
            status, _, _ = http("GET", f"{env.url}/v2/ping", headers=ZaqarEnv.headers("ping"))
        except OSError as error:
            unavailable(f"zaqar at {env.url} does not answer: {error}")
        if status != 401:
            unavailable(f"zaqar at {env.url} answers an anonymous /v2/ping with {status}")
        return env

    def queues(self, token: str, project_id: str) -> list[str]:
        """The names of the queues of ``project_id``, as its user sees them."""
        headers = {**ZaqarEnv.headers(project_id), "X-Auth-Token": token}
        status, _, body = http("GET", f"{self.url}/v2/queues", headers=headers)
        assert status in (200, 204), (status, body)
        found = json.loads(body) if body else {}
        return [str(q["name"]) for q in found.get("queues", [])]


@dataclasses.dataclass(frozen=True)
class AgentSandbox:
    """A private sandbox of the real os-collect-config + heat-agents chain (tools/agent-*.sh)."""

    path: Path
    run_script: Path

    @classmethod
    def create(cls, path: Path) -> AgentSandbox:
        s = service_settings("agent", ("THERMIK_AGENT_SETUP", "THERMIK_AGENT_RUN"))
        setup = subprocess.run(
            [s["THERMIK_AGENT_SETUP"], "--sandbox", str(path)],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if setup.returncode:
            unavailable(f"agent-setup.sh failed: {setup.stderr[-2000:]}")
        return cls(path, Path(s["THERMIK_AGENT_RUN"]))

    @property
    def log(self) -> Path:
        return self.path / "agent.log"

    def command(self, *args: str) -> list[str]:
        """tools/agent-run.sh in this sandbox with ``args``."""
        return [str(self.run_script), "--sandbox", str(self.path), *args]

    def run(self, *args: str, timeout: float = 120) -> None:
        """One agent run of tools/agent-run.sh ``args``; its log is appended to ``self.log``."""
        with self.log.open("a") as log:
            done = subprocess.run(
                self.command(*args),
                stdout=log,
                stderr=subprocess.STDOUT,
                timeout=timeout,
                check=False,
            )
        assert done.returncode == 0, f"agent failed:\n{self.log.read_text()[-4000:]}"

    @contextlib.contextmanager
    def background(self, *args: str) -> Iterator[subprocess.Popen[bytes]]:
        """tools/agent-run.sh ``args`` (a polling agent) in the background until the block
        ends."""
        with self.log.open("a") as log:
            agent = subprocess.Popen(
                self.command(*args),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            yield agent
        finally:
            # The agent runs os-refresh-config and hooks as children: end its whole group.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(agent.pid, signal.SIGTERM)
            try:
                agent.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(agent.pid, signal.SIGKILL)
                agent.wait()

    def run_once(self, metadata_url: str, timeout: float = 120) -> None:
        """One agent run (fetch, apply, signal) against ``metadata_url``."""
        self.run("--once", metadata_url, timeout=timeout)

    @contextlib.contextmanager
    def polling(self, metadata_url: str, interval: int = 2) -> Iterator[subprocess.Popen[bytes]]:
        """The agent polling ``metadata_url`` in the background until the block ends."""
        with self.background("--poll", str(interval), metadata_url) as agent:
            yield agent
