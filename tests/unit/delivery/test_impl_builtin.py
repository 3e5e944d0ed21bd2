"""The engine serves metadata and takes signals only through signed, unexpired URLs."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from thermik.conf.settings import ApiSettings, Settings
from thermik.delivery import signing
from thermik.delivery.base import DeploymentRef, ServerRef, SignalEndpoint
from thermik.delivery.impl_builtin import BuiltinBackend, InMemoryObjectStore
from thermik.delivery.loopback import HttpRequest
from thermik.errors import Forbidden, InvalidRequest, InvalidSignal, NotFound, RequestTooLarge


class Clock:
    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def backend(clock: Clock) -> BuiltinBackend:
    return BuiltinBackend(
        InMemoryObjectStore(),
        key="k",
        base_url="http://engine:8204/",
        url_lifetime=3600,
        max_signal_size=100,
        clock=clock,
    )


def request(url: str, method: str = "GET", body: bytes = b"") -> HttpRequest:
    parts = urlsplit(url)
    return HttpRequest(method, parts.path, dict(parse_qsl(parts.query)), body)


def test_urls_are_stable_per_server_and_differ_between_servers(backend: BuiltinBackend) -> None:
    first = backend.provision(ServerRef("srv-1"))
    assert first == backend.provision(ServerRef("srv-1"))
    other = backend.provision(ServerRef("srv-2"))
    assert first.locator != other.locator
    url = first.collector_settings["metadata_url"]
    assert url.startswith("http://engine:8204/delivery/v1/metadata/")
    assert "srv-1" not in url


def test_published_document_is_served_to_a_signed_get(backend: BuiltinBackend) -> None:
    endpoint = backend.provision(ServerRef("srv-1"))
    url = endpoint.collector_settings["metadata_url"]
    with pytest.raises(NotFound):
        backend.handle(request(url))
    assert backend.read_back(endpoint) is None
    assert backend.publish(endpoint, {"deployments": [], "thermik-generation": 2}).applied
    assert backend.read_back(endpoint) == {"deployments": [], "thermik-generation": 2}
    response = backend.handle(request(url))
    assert response.status == 200
    assert json.loads(response.body) == {"deployments": [], "thermik-generation": 2}
    head = backend.handle(request(url, "HEAD"))
    assert head.body == b""
    assert head.headers["Content-Length"] == str(len(response.body))
    assert "Last-Modified" not in head.headers


def test_wrong_signature_expiry_or_method_is_forbidden(
    backend: BuiltinBackend, clock: Clock
) -> None:
    endpoint = backend.provision(ServerRef("srv-1"))
    backend.publish(endpoint, {})
    url = endpoint.collector_settings["metadata_url"]
    with pytest.raises(Forbidden):
        backend.handle(request(url.replace("temp_url_sig=", "temp_url_sig=f")))
    with pytest.raises(Forbidden):
        backend.handle(request(url, "PUT", b"{}"))
    other_server = backend.provision(ServerRef("srv-2")).collector_settings["metadata_url"]
    forged = request(url)
    with pytest.raises(Forbidden):
        backend.handle(HttpRequest("GET", request(other_server).path, forged.query))
    clock.now += 3601
    with pytest.raises(Forbidden) as info:
        backend.handle(request(url))
    assert str(info.value) == "the URL has expired"


def test_signals_are_accepted_validated_and_collected_once(backend: BuiltinBackend) -> None:
    signal = backend.provision_signal(DeploymentRef("dep-1", "srv-1", "cfg-1"))
    assert signal.inputs["deploy_signal_verb"] == "PUT"
    url = signal.inputs["deploy_signal_id"]
    assert backend.collect_signals(signal) == []
    assert backend.handle(request(url, "PUT", b'{"deploy_status_code": 0}')).status == 201
    assert backend.collect_signals(signal) == [{"deploy_status_code": 0}]
    assert backend.collect_signals(signal) == []
    backend.handle(request(url, "PUT", b'{"deploy_status_code": 1}'))
    assert backend.collect_signals(signal) == [{"deploy_status_code": 1}]
    with pytest.raises(InvalidSignal):
        backend.handle(request(url, "PUT", b"[]"))
    with pytest.raises(RequestTooLarge):
        backend.handle(request(url, "PUT", b"{" + b" " * 200 + b"}"))
    # What a CFN_SIGNAL client does (Heat's default transport, mapped onto this URL).
    assert backend.handle(request(url, "POST", b'{"deploy_status_code": 2}')).status == 201
    assert backend.collect_signals(signal) == [{"deploy_status_code": 2}]
    with pytest.raises(Forbidden):
        backend.handle(request(url, "DELETE", b"{}"))
    backend.revoke(signal)
    assert backend.collect_signals(signal) == []


def test_metadata_urls_take_no_writes_even_when_signed_for_them(
    backend: BuiltinBackend, clock: Clock
) -> None:
    path = backend.provision(ServerRef("srv-1")).locator["path"]
    query = dict(parse_qsl(signing.signed_query("k", "PUT", path, int(clock.now) + 60)))
    with pytest.raises(InvalidRequest):
        backend.handle(HttpRequest("PUT", path, query, b"{}"))


def test_a_new_action_gets_a_new_signal_url(backend: BuiltinBackend) -> None:
    create = backend.provision_signal(DeploymentRef("dep-1", "srv-1", "cfg-1"))
    update = backend.provision_signal(DeploymentRef("dep-1", "srv-1", "cfg-2"))
    assert create.locator != update.locator


def test_serve_renders_errors_as_statuses(backend: BuiltinBackend) -> None:
    url = backend.provision(ServerRef("srv-1")).collector_settings["metadata_url"]
    assert backend.serve(request(url)).status == 404
    forbidden = backend.serve(request(url + "0"))
    assert forbidden.status == 403
    assert json.loads(forbidden.body)["error"]["type"] == "Forbidden"


def test_keys_derive_from_the_encryption_key(tmp_path: Path) -> None:
    settings = Settings.embedded(tmp_path)
    keyed = Settings(state_dir=tmp_path, database=settings.database, auth_encryption_key="sekrit")
    a = BuiltinBackend.from_settings(keyed).provision(ServerRef("s")).locator
    b = BuiltinBackend.from_settings(keyed).provision(ServerRef("s")).locator
    c = BuiltinBackend.from_settings(settings).provision(ServerRef("s")).locator
    assert a == b
    assert a != c


def test_served_over_loopback_http() -> None:
    with BuiltinBackend(InMemoryObjectStore(), key="k", base_url="http://unused") as backend:
        base = backend.serve_on_loopback()
        endpoint = backend.provision(ServerRef("srv-1"))
        url = endpoint.collector_settings["metadata_url"]
        assert url.startswith(base + "/delivery/v1/metadata/")
        backend.publish(endpoint, {"deployments": []})
        with urllib.request.urlopen(url, timeout=5) as response:
            assert json.loads(response.read()) == {"deployments": []}
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(url + "0", timeout=5)
        assert info.value.code == 403
        info.value.close()


def test_the_engine_serves_its_urls_at_the_public_url() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    public = f"http://127.0.0.1:{port}"
    backend = BuiltinBackend(InMemoryObjectStore(), key="k", base_url="http://unused")
    try:
        assert backend.serve_on_loopback(public) == public
        endpoint = backend.provision(ServerRef("srv"))
        url = endpoint.collector_settings["metadata_url"]
        assert url.startswith(public + "/delivery/v1/metadata/")
        backend.publish(endpoint, {"deployments": []})
        with urllib.request.urlopen(url, timeout=10) as response:
            assert json.loads(response.read()) == {"deployments": []}
    finally:
        backend.close()


def test_a_failing_signal_listener_keeps_the_signal() -> None:
    backend = BuiltinBackend(InMemoryObjectStore(), key="k", base_url="http://x")
    heard: list[str] = []

    def broken(endpoint: SignalEndpoint) -> None:
        heard.append(endpoint.locator["path"])
        raise RuntimeError("listener bug")

    backend.add_signal_listener(broken)
    endpoint = backend.provision_signal(DeploymentRef("d", "s", "c"))
    parts = urlsplit(endpoint.inputs["deploy_signal_id"])
    request = HttpRequest("PUT", parts.path, dict(parse_qsl(parts.query)), b"{}")
    assert backend.handle(request).status == 201
    assert heard == [endpoint.locator["path"]]
    assert backend.collect_signals(endpoint) == [{}]


def expiry(url: str) -> int:
    return int(dict(parse_qsl(urlsplit(url).query))[signing.EXPIRES])


def test_urls_rotate_before_they_expire_and_the_agent_follows(
    backend: BuiltinBackend, clock: Clock
) -> None:
    endpoint = backend.provision(ServerRef("srv-1"))
    url = endpoint.collector_settings["metadata_url"]
    signal_url = backend.provision_signal(DeploymentRef("d", "srv-1", "c")).inputs[
        "deploy_signal_id"
    ]
    document = {
        "os-collect-config": {"collectors": ["request"], "request": {"metadata_url": url}},
        "deployments": [
            {"id": "c", "inputs": [{"name": "deploy_signal_id", "value": signal_url}]}
        ],
    }
    backend.publish(endpoint, document)
    assert json.loads(backend.handle(request(url)).body) == document
    assert backend.refreshed(endpoint) == endpoint

    clock.now += 3600 * 0.6  # past half its lifetime: still valid, no longer handed out
    served = json.loads(backend.handle(request(url)).body)
    fresh_url = served["os-collect-config"]["request"]["metadata_url"]
    fresh_signal = served["deployments"][0]["inputs"][0]["value"]
    assert fresh_url != url
    assert fresh_signal != signal_url
    assert min(expiry(fresh_url), expiry(fresh_signal)) > clock.now + 3600 / 2
    assert backend.refreshed(endpoint).collector_settings["metadata_url"] == fresh_url
    assert backend.handle(request(url)).body == backend.handle(request(url)).body

    clock.now += 3600 * 0.5  # the first URL expired; the agent polls with the one it was served
    with pytest.raises(Forbidden):
        backend.handle(request(url))
    assert backend.handle(request(fresh_url)).status == 200
    assert backend.handle(request(fresh_signal, "PUT", b"{}")).status == 201


def test_urls_name_an_ipv6_api_address_in_brackets(tmp_path: Path) -> None:
    settings = Settings.embedded(tmp_path)
    settings = Settings(
        state_dir=tmp_path, database=settings.database, api=ApiSettings(bind_host="::1")
    )
    url = BuiltinBackend.from_settings(settings).provision(ServerRef("s"))
    assert url.collector_settings["metadata_url"].startswith("http://[::1]:8204/delivery/v1/")
