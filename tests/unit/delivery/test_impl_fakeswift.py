"""The fake Swift reproduces Swift's measured write semantics, faults and TempURL access."""

from __future__ import annotations

import inspect
import json
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from thermik.delivery import fakeswift_cluster
from thermik.delivery.base import DeploymentRef, ServerRef
from thermik.delivery.fakeswift_cluster import FakeSwiftCluster, FakeSwiftHTTPError, Knobs
from thermik.delivery.impl_fakeswift import FakeSwiftBackend, map_fakeswift_errors
from thermik.delivery.simulation import Simulation, run_blocking
from thermik.errors import DeliveryError, DeliveryTargetMissing, DeliveryUnavailable, InvalidSignal

PATH = "/v1/AUTH_fake/c/o"


class Clock:
    """A settable clock; the fake stamps writes with it plus each proxy's offset."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def put(cluster: FakeSwiftCluster, body: bytes, proxy: int) -> int:
    return run_blocking(cluster.put(PATH, body, proxy=proxy)).status


def test_a_newer_write_through_a_lagging_proxy_is_answered_202_and_dropped() -> None:
    clock = Clock()
    cluster = FakeSwiftCluster(Knobs(proxy_offsets=(0.0, -2.0)), clock=clock)
    assert put(cluster, b"gen1", proxy=0) == 201
    clock.now += 0.1
    assert put(cluster, b"gen2", proxy=1) == 202
    assert cluster.stored(PATH) == b"gen1"
    assert run_blocking(cluster.delete(PATH, proxy=1)).status == 409
    clock.now += 2.0
    assert put(cluster, b"gen2", proxy=1) == 201
    assert cluster.stored(PATH) == b"gen2"
    assert cluster.counters.puts == 3
    assert cluster.counters.puts_dropped == 1


def test_a_future_dated_object_blocks_other_proxies_until_real_time_passes_it() -> None:
    clock = Clock()
    cluster = FakeSwiftCluster(Knobs(proxy_offsets=(3600.0, 0.0)), clock=clock)
    assert put(cluster, b"future", proxy=0) == 201
    clock.now += 3599.0
    assert put(cluster, b"now", proxy=1) == 202
    clock.now += 2.0
    assert put(cluster, b"now", proxy=1) == 201


def test_equal_stamps_lose() -> None:
    cluster = FakeSwiftCluster(clock=Clock())
    assert put(cluster, b"a", proxy=0) == 201
    assert put(cluster, b"b", proxy=0) == 202


def test_plain_reads_may_be_stale_within_the_window_but_newest_reads_are_not() -> None:
    clock = Clock()
    knobs = Knobs(stale_read_probability=1.0, stale_read_window=1.0)
    cluster = FakeSwiftCluster(knobs, clock=clock)
    put(cluster, b"v1", proxy=0)
    clock.now += 5.0
    put(cluster, b"v2", proxy=0)
    clock.now += 0.5
    assert run_blocking(cluster.get(PATH)).body == b"v1"
    assert run_blocking(cluster.get(PATH, newest=True)).body == b"v2"
    cluster.configure(honour_newest=False)
    assert run_blocking(cluster.get(PATH, newest=True)).body == b"v1"
    clock.now += 1.0
    assert run_blocking(cluster.get(PATH)).body == b"v2"


def test_gets_carry_swift_headers() -> None:
    cluster = FakeSwiftCluster(clock=Clock(1_795_997_536.61204))
    run_blocking(cluster.put(PATH, b"{}", {"X-Object-Meta-Generation": "3", "X-Other": "no"}))
    response = run_blocking(cluster.get(PATH, head=True))
    assert response.status == 200
    assert response.body == b""
    assert response.headers["X-Timestamp"] == "1795997536.61204"
    assert response.headers["Last-Modified"].endswith(" GMT")
    assert response.headers["X-Object-Meta-Generation"] == "3"
    assert "X-Other" not in response.headers
    assert run_blocking(cluster.get("/v1/AUTH_fake/c/missing")).status == 404


def test_same_seed_same_story() -> None:
    def story(seed: int) -> list[int]:
        clock = Clock()
        cluster = FakeSwiftCluster(Knobs(proxy_offsets=(0.0, -2.0, 1.0)), seed=seed, clock=clock)
        statuses = []
        for n in range(30):
            clock.now += 0.05
            statuses.append(run_blocking(cluster.put(PATH, str(n).encode())).status)
        return statuses

    assert story(7) == story(7)
    assert 202 in story(7)


def test_latency_and_commit_delay_advance_simulated_time() -> None:
    sim = Simulation(start=0.0)
    cluster = FakeSwiftCluster(
        Knobs(latency=(0.01, 0.01), commit_delay=(0.005, 0.005)), clock=sim.clock
    )
    done: list[float] = []
    sim.spawn(cluster.put(PATH, b"x"), lambda r: done.append(sim.now))
    sim.run()
    assert done == [pytest.approx(0.025)]


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def backend(clock: Clock) -> Iterator[FakeSwiftBackend]:
    with FakeSwiftBackend(FakeSwiftCluster(clock=clock)) as fake:
        yield fake


def test_backend_publishes_and_reads_back(backend: FakeSwiftBackend) -> None:
    endpoint = backend.provision(ServerRef("srv-1"))
    assert endpoint.collector == "request"
    assert "temp_url_sig=" in endpoint.collector_settings["metadata_url"]
    assert backend.read_back(endpoint) is None
    result = backend.publish(endpoint, {"deployments": [], "thermik-generation": 4})
    assert result.applied
    assert result.status == 201
    assert backend.read_back(endpoint) == {"deployments": [], "thermik-generation": 4}


def test_backend_reports_a_dropped_write_as_not_applied() -> None:
    clock = Clock()
    cluster = FakeSwiftCluster(Knobs(proxy_offsets=(0.0, -2.0)), clock=clock)
    backend = FakeSwiftBackend(cluster)
    endpoint = backend.provision(ServerRef("srv-1"))
    assert run_blocking(backend.publish_process(endpoint, {"n": 1}, proxy=0)).applied
    result = run_blocking(backend.publish_process(endpoint, {"n": 2}, proxy=1))
    assert not result.applied
    assert result.status == 202
    assert backend.read_back(endpoint) == {"n": 1}


@pytest.mark.parametrize(
    ("knobs", "message"),
    [
        ({"down": True}, "fake Swift connection failed: connection refused"),
        ({"error_rate": 1.0}, "fake Swift answered 503"),
        ({"reset_rate": 1.0}, "fake Swift connection failed: connection reset by peer"),
    ],
)
def test_faults_surface_as_delivery_unavailable(
    backend: FakeSwiftBackend, knobs: dict[str, object], message: str
) -> None:
    endpoint = backend.provision(ServerRef("srv-1"))
    backend.cluster.configure(**knobs)
    with pytest.raises(DeliveryUnavailable) as info:
        backend.publish(endpoint, {"n": 1})
    assert str(info.value).startswith(message)


def test_a_reset_after_commit_still_stored_the_object(backend: FakeSwiftBackend) -> None:
    endpoint = backend.provision(ServerRef("srv-1"))
    backend.cluster.configure(reset_rate=1.0)
    with pytest.raises(DeliveryUnavailable):
        backend.publish(endpoint, {"n": 1})
    backend.cluster.configure(reset_rate=0.0)
    assert backend.read_back(endpoint) == {"n": 1}


def test_signals_are_collected_once_per_change(backend: FakeSwiftBackend, clock: Clock) -> None:
    signal = backend.provision_signal(DeploymentRef("dep-1", "srv-1", "cfg-1"))
    assert signal.transport == "TEMP_URL_SIGNAL"
    assert signal.inputs["deploy_signal_verb"] == "PUT"
    assert backend.collect_signals(signal) == []
    cluster = backend.cluster
    path = signal.locator["path"]
    query = dict(
        p.split("=", 1) for p in signal.inputs["deploy_signal_id"].split("?")[1].split("&")
    )
    response = run_blocking(
        cluster.tempurl_request("PUT", path, query, b'{"deploy_status_code": 0}')
    )
    assert response.status == 201
    assert backend.collect_signals(signal) == [{"deploy_status_code": 0}]
    assert backend.collect_signals(signal) == []
    clock.now += 1.0
    run_blocking(cluster.put(path, b"garbage", proxy=0))
    with pytest.raises(InvalidSignal):
        backend.collect_signals(signal)
    assert backend.collect_signals(signal) == []
    with pytest.raises(DeliveryUnavailable):
        backend.revoke(signal)  # the stored stamp is not older than this proxy's clock
    clock.now += 1.0
    backend.revoke(signal)
    assert cluster.stored(path) is None


def test_revoking_a_missing_object_is_fine(backend: FakeSwiftBackend) -> None:
    backend.revoke(backend.provision(ServerRef("never-published")))


def test_served_over_http_with_tempurls() -> None:
    backend = FakeSwiftBackend(FakeSwiftCluster(), serve=True)
    with backend:
        endpoint = backend.provision(ServerRef("srv-http"))
        url = endpoint.collector_settings["metadata_url"]
        assert url.startswith("http://127.0.0.1:")
        backend.publish(endpoint, {"deployments": [], "thermik-generation": 1})
        head = urllib.request.Request(url, method="HEAD")
        with urllib.request.urlopen(head, timeout=5) as response:
            assert response.status == 200
        with urllib.request.urlopen(url, timeout=5) as response:
            assert json.loads(response.read()) == {"deployments": [], "thermik-generation": 1}
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(url.replace("temp_url_sig=", "temp_url_sig=0"), timeout=5)
        assert info.value.code == 401
        info.value.close()
        signal = backend.provision_signal(DeploymentRef("d", "srv-http", "c"))
        put = urllib.request.Request(
            signal.inputs["deploy_signal_id"], data=b'{"deploy_status_code": 0}', method="PUT"
        )
        with urllib.request.urlopen(put, timeout=5) as response:
            assert response.status == 201
        assert backend.collect_signals(signal) == [{"deploy_status_code": 0}]
        backend.cluster.configure(down=True)
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(url, timeout=5)
        assert info.value.code == 503
        info.value.close()


def fake_client_exceptions() -> list[type[Exception]]:
    return [
        cls
        for _, cls in inspect.getmembers(fakeswift_cluster, inspect.isclass)
        if issubclass(cls, fakeswift_cluster.FakeSwiftError)
    ]


@pytest.mark.parametrize("cls", fake_client_exceptions())
def test_every_fake_client_exception_is_mapped(cls: type[Exception]) -> None:
    instance = cls(404, "gone") if cls is FakeSwiftHTTPError else cls("boom")
    with pytest.raises(DeliveryError), map_fakeswift_errors():
        raise instance


def test_http_statuses_map_to_precise_errors() -> None:
    with pytest.raises(DeliveryTargetMissing), map_fakeswift_errors():
        raise FakeSwiftHTTPError(404, "gone")
