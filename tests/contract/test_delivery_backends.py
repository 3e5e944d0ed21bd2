"""One behaviour suite for every delivery backend (DESIGN.md §3; aesthetics convention 13).

The agent is played the way os-collect-config and heat-config-notify reach what a backend hands
out: plain HTTP on TempURL-style URLs, zaqarclient on queues. Swift and Zaqar run when their
environment variables are set (see ``tests/delivery_services.py``).
"""

from __future__ import annotations

import itertools
import json
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from zaqarclient.queues import client as zaqar_client

from tests.delivery_services import swift_settings, zaqar_settings
from thermik.delivery import loader
from thermik.delivery.base import (
    DeliveryBackend,
    DeploymentRef,
    MetadataEndpoint,
    ServerRef,
    SignalEndpoint,
)
from thermik.delivery.fakeswift_cluster import FakeSwiftCluster
from thermik.delivery.impl_builtin import BuiltinBackend, InMemoryObjectStore
from thermik.delivery.impl_fakeswift import FakeSwiftBackend
from thermik.delivery.impl_swift import SwiftBackend
from thermik.delivery.impl_zaqar import ZaqarBackend


def ticking_clock(start: float = 1_700_000_000.0, step: float = 0.001) -> Callable[[], float]:
    """Real stores order writes by time; this clock moves on with every reading."""
    ticks = itertools.count()
    return lambda: start + next(ticks) * step


class UrlAgent:
    """An agent polling a ``request`` URL and PUTting its signal to ``deploy_signal_id``."""

    def fetch(self, endpoint: MetadataEndpoint) -> Any:
        with urllib.request.urlopen(endpoint.collector_settings["metadata_url"], timeout=10) as r:
            return json.loads(r.read())

    def signal(self, endpoint: SignalEndpoint, payload: dict[str, Any]) -> None:
        verb = endpoint.inputs["deploy_signal_verb"]
        req = urllib.request.Request(
            endpoint.inputs["deploy_signal_id"], data=json.dumps(payload).encode(), method=verb
        )
        req.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(req, timeout=10) as response:
            assert 200 <= response.status < 300


class QueueAgent:
    """An agent popping its metadata queue and posting to its signal queue."""

    def __init__(self, url: str, project_id: str) -> None:
        auth = {"backend": "noauth", "options": {"os_project_id": project_id}}
        self._client = zaqar_client.Client(url, version=2, conf={"auth_opts": auth})

    def fetch(self, endpoint: MetadataEndpoint) -> Any:
        queue = self._client.queue(endpoint.collector_settings["queue_id"], auto_create=False)
        return next(iter(queue.pop())).body

    def signal(self, endpoint: SignalEndpoint, payload: dict[str, Any]) -> None:
        queue = self._client.queue(endpoint.inputs["deploy_queue_id"], auto_create=False)
        queue.post({"body": payload, "ttl": 600})


Made = tuple[DeliveryBackend, UrlAgent | QueueAgent]


def builtin() -> Made:
    backend = BuiltinBackend(InMemoryObjectStore(), key="contract", base_url="http://unused")
    backend.serve_on_loopback()
    return backend, UrlAgent()


def fakeswift() -> Made:
    return FakeSwiftBackend(FakeSwiftCluster(clock=ticking_clock()), serve=True), UrlAgent()


def swift() -> Made:
    return SwiftBackend(swift_settings()), UrlAgent()


def zaqar() -> Made:
    settings = zaqar_settings()
    assert settings.url is not None
    return ZaqarBackend(settings), QueueAgent(settings.url, settings.project_id)


FACTORIES: dict[str, Callable[[], Made]] = {
    "builtin": builtin,
    "fakeswift": fakeswift,
    "swift": swift,
    "zaqar": zaqar,
}


@pytest.fixture(params=sorted(FACTORIES))
def made(request: pytest.FixtureRequest) -> Iterator[Made]:
    backend, agent = FACTORIES[request.param]()
    with backend:
        yield backend, agent


def server() -> ServerRef:
    return ServerRef(f"srv-{uuid.uuid4()}")


def test_backend_is_registered_under_its_name(made: Made) -> None:
    backend, _ = made
    assert loader.load_backend(backend.name) is type(backend)


def test_agent_is_served_what_was_published(made: Made) -> None:
    backend, agent = made
    endpoint = backend.provision(server())
    assert endpoint.backend == backend.name
    assert backend.read_back(endpoint) is None
    document = {"deployments": [], "os-collect-config": {}, "thermik-generation": 1}
    assert backend.publish(endpoint, document).applied
    assert backend.read_back(endpoint) == document
    assert agent.fetch(endpoint) == document


def test_a_later_publish_is_what_reads_back(made: Made) -> None:
    backend, _ = made
    endpoint = backend.provision(server())
    backend.publish(endpoint, {"thermik-generation": 1})
    backend.publish(endpoint, {"thermik-generation": 2})
    assert backend.read_back(endpoint) == {"thermik-generation": 2}


def test_agent_signal_is_collected_once(made: Made) -> None:
    backend, agent = made
    ref = server()
    signal = backend.provision_signal(DeploymentRef("dep", ref.server_id, str(uuid.uuid4())))
    assert backend.collect_signals(signal) == []
    payload = {"deploy_status_code": 0, "deploy_stdout": "ok", "result": "42"}
    agent.signal(signal, payload)
    assert backend.collect_signals(signal) == [payload]
    assert backend.collect_signals(signal) == []
    backend.revoke(signal)


def test_revoke_removes_the_document(made: Made) -> None:
    backend, _ = made
    endpoint = backend.provision(server())
    backend.publish(endpoint, {"thermik-generation": 1})
    backend.revoke(endpoint)
    assert backend.read_back(endpoint) is None
    backend.revoke(endpoint)
