"""The builtin delivery's capability URLs beside the API: no authentication, the signed URL is
the credential; a wrong or expired signature is 403 and changes nothing."""

from __future__ import annotations

from urllib.parse import urlsplit

import falcon.testing
import pytest

from tests.unit.api.conftest import tenant_path
from tests.unit.api.memory_service import MemoryService
from thermik.api.app import make_app
from thermik.conf.settings import ApiSettings, LimitSettings
from thermik.delivery.base import DeploymentRef, ServerRef, SignalEndpoint
from thermik.delivery.impl_builtin import BuiltinBackend, InMemoryObjectStore
from thermik.delivery.loopback import wsgi_app


def local(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.path, parts.query


@pytest.fixture
def backend() -> BuiltinBackend:
    return BuiltinBackend(InMemoryObjectStore(), key="k", base_url="http://api.example:8004")


@pytest.fixture
def client(service: MemoryService, backend: BuiltinBackend) -> falcon.testing.TestClient:
    settings = ApiSettings(static_token="secret")
    app = make_app(service, settings, limits=LimitSettings(), delivery=wsgi_app(backend.serve))
    return falcon.testing.TestClient(app)


def test_metadata_is_served_without_a_token(
    client: falcon.testing.TestClient, backend: BuiltinBackend
) -> None:
    endpoint = backend.provision(ServerRef("srv"))
    backend.publish(endpoint, {"deployments": []})
    path, query = local(endpoint.collector_settings["metadata_url"])
    assert path.startswith("/delivery/v1/metadata/")
    assert client.simulate_get(path, query_string=query).json == {"deployments": []}
    assert client.simulate_head(path, query_string=query).status_code == 200
    assert client.simulate_get(path).status_code == 403
    assert (
        client.simulate_get(path, query_string=query.replace("sig=", "sig=f")).status_code == 403
    )
    assert client.simulate_get(tenant_path("/stacks")).status_code == 401


def test_signals_are_stored_and_announced(
    client: falcon.testing.TestClient, backend: BuiltinBackend
) -> None:
    heard: list[SignalEndpoint] = []
    backend.add_signal_listener(heard.append)
    endpoint = backend.provision_signal(DeploymentRef("dep", "srv", "cfg"))
    path, query = local(endpoint.inputs["deploy_signal_id"])
    forged = query.replace("sig=", "sig=0")
    assert client.simulate_put(path, query_string=forged, body="{}").status_code == 403
    assert client.simulate_put(path, query_string=query, body="nope").status_code == 400
    assert heard == []
    assert backend.collect_signals(endpoint) == []
    done = client.simulate_put(path, query_string=query, body='{"deploy_status_code": 0}')
    assert done.status_code == 201
    assert [h.locator for h in heard] == [endpoint.locator]
    assert backend.collect_signals(endpoint) == [{"deploy_status_code": 0}]


def test_without_delivery_the_prefix_is_just_an_unknown_path(service: MemoryService) -> None:
    app = make_app(service, ApiSettings(), limits=LimitSettings())
    client = falcon.testing.TestClient(app)
    assert client.simulate_get("/delivery/v1/metadata/x").status_code == 404
