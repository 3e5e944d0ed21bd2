"""One behaviour suite for every delivery backend (DESIGN.md §3; aesthetics convention 13).

Agents are played with plain HTTP (urllib), the way os-collect-config and heat-config-notify
reach the URLs a backend hands out.
"""

from __future__ import annotations

import itertools
import json
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from thermik.delivery import loader
from thermik.delivery.base import DeliveryBackend, DeploymentRef, ServerRef
from thermik.delivery.impl_builtin import BuiltinBackend, InMemoryObjectStore
from thermik.delivery.impl_fakeswift import FakeSwiftBackend, FakeSwiftCluster


def ticking_clock(start: float = 1_700_000_000.0, step: float = 0.001) -> Callable[[], float]:
    """Real stores order writes by time; this clock moves on with every reading."""
    ticks = itertools.count()
    return lambda: start + next(ticks) * step


def builtin() -> DeliveryBackend:
    backend = BuiltinBackend(InMemoryObjectStore(), key="contract", base_url="http://unused")
    backend.serve_on_loopback()
    return backend


def fakeswift() -> DeliveryBackend:
    return FakeSwiftBackend(FakeSwiftCluster(clock=ticking_clock()), serve=True)


FACTORIES: dict[str, Callable[[], DeliveryBackend]] = {
    "builtin": builtin,
    "fakeswift": fakeswift,
}


@pytest.fixture(params=sorted(FACTORIES))
def backend(request: pytest.FixtureRequest) -> Iterator[DeliveryBackend]:
    with FACTORIES[request.param]() as made:
        yield made


def agent_get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def agent_signal(url: str, verb: str, payload: dict[str, Any]) -> int:
    data = json.dumps(payload).encode()
    req = urllib.request.Request(url, data=data, method=verb)
    req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=10) as response:
        return int(response.status)


def server() -> ServerRef:
    return ServerRef(f"srv-{uuid.uuid4()}")


def test_backend_is_registered_under_its_name(backend: DeliveryBackend) -> None:
    assert loader.load_backend(backend.name) is type(backend)


def test_agent_is_served_what_was_published(backend: DeliveryBackend) -> None:
    endpoint = backend.provision(server())
    assert endpoint.backend == backend.name
    assert backend.read_back(endpoint) is None
    document = {"deployments": [], "os-collect-config": {}, "thermik-generation": 1}
    assert backend.publish(endpoint, document).applied
    assert backend.read_back(endpoint) == document
    assert agent_get(endpoint.collector_settings["metadata_url"]) == document


def test_a_later_publish_replaces_the_document(backend: DeliveryBackend) -> None:
    endpoint = backend.provision(server())
    backend.publish(endpoint, {"thermik-generation": 1})
    backend.publish(endpoint, {"thermik-generation": 2})
    assert backend.read_back(endpoint) == {"thermik-generation": 2}


def test_agent_signal_is_collected_once(backend: DeliveryBackend) -> None:
    ref = server()
    signal = backend.provision_signal(DeploymentRef("dep", ref.server_id, str(uuid.uuid4())))
    assert backend.collect_signals(signal) == []
    payload = {"deploy_status_code": 0, "deploy_stdout": "ok", "result": "42"}
    status = agent_signal(
        signal.inputs["deploy_signal_id"], signal.inputs["deploy_signal_verb"], payload
    )
    assert 200 <= status < 300
    assert backend.collect_signals(signal) == [payload]
    assert backend.collect_signals(signal) == []


def test_revoke_removes_the_document(backend: DeliveryBackend) -> None:
    endpoint = backend.provision(server())
    backend.publish(endpoint, {"thermik-generation": 1})
    backend.revoke(endpoint)
    assert backend.read_back(endpoint) is None
    backend.revoke(endpoint)
