"""examples/cloud/webserver.yaml, as it is, on the loopback cloud (issues 15 and 19): a network,
subnet, router, security group, port, floating IP and server configured by a software
deployment over POLL_TEMP_URL (the real Swift) whose script writes a page and serves it. The
fake virt driver boots no guest, so the test plays it with the real os-collect-config booted
from the user_data Nova holds; the page is then fetched from the web server the deployment
started (on loopback, where the played guest runs)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.test_server_deployments import DeployingEngine, server_id_once_created
from tests.functional.guest import Guest, nova_boot_data
from tests.functional.services import AgentSandbox, SwiftEnv
from thermik.conf.settings import DeliverySettings

pytestmark = pytest.mark.functional
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "cloud" / "webserver.yaml"
PREFIX = "webexample"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def page(port: int) -> str:
    """The page served on ``port``, waiting a little for the web server to listen."""
    deadline = time.monotonic() + 15
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
                return str(response.read().decode().strip())
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@contextlib.contextmanager
def web_server_stopped_after(root: Path) -> Iterator[None]:
    """Stop the web server the deployment's script left running, whatever the test's end."""
    try:
        yield
    finally:
        pid_file = root / ".http-server.pid"
        if pid_file.exists():
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid_file.read_text().strip()), signal.SIGTERM)


def test_the_webserver_example_serves_its_page(
    tmp_path: Path, cloud_env: CloudEnv, agent_sandbox: AgentSandbox, swift_env: SwiftEnv
) -> None:
    name = f"{PREFIX}-{uuid.uuid4().hex[:8]}"
    swift = swift_env.delivery(name)
    engine = DeployingEngine(
        tmp_path / "engine", cloud_env, DeliverySettings(backend="swift"), swift
    )
    root, port = tmp_path / "www", free_port()
    conn = cloud_env.connect()
    ip_id = None
    try:
        stack = engine.create(
            name,
            EXAMPLE.read_text(),
            image=cloud_env.image,
            flavor=cloud_env.flavor,
            public_network=cloud_env.public_network,
            cidr=f"10.{uuid.uuid4().int % 200 + 20}.9.0/24",
            message=f"hello from {name}",
            http_port=port,
            document_root=str(root),
            listen_address="127.0.0.1",
        )
        with web_server_stopped_after(root):
            try:
                server_id = server_id_once_created(engine, stack)
                guest = Guest(
                    agent_sandbox, nova_boot_data(cloud_env.connect(admin=True), server_id)
                )
                guest.boot()
                # The agent's process group, the web server included, ends with polling().
                with guest.polling():
                    view = engine.wait(stack)
                    tail = agent_sandbox.log.read_text()[-3000:]
                    assert (view.action, view.status) == ("CREATE", "COMPLETE"), (
                        f"{view.status_reason}\n{tail}"
                    )
                    assert page(port) == f"hello from {name}"
                outputs = engine.outputs(stack)
                ip_id = engine.resource(stack, "floating_ip").physical_resource_id
                assert ip_id is not None
                address = conn.network.get_ip(ip_id).floating_ip_address
                assert outputs["url"] == f"http://{address}/"
                assert outputs["deploy_stdout"].strip() == f"serving {root} on port {port}"
            finally:
                view = engine.delete(stack)
                assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    finally:
        engine.close()
    assert not [s for s in conn.compute.servers() if str(s.name).startswith(name)]
    assert not [n for n in conn.network.networks() if str(n.name).startswith(name)]
    assert ip_id is None or conn.network.find_ip(ip_id) is None
