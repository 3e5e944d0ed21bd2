"""The actor shell in real time: pykka threads, an executor, timers, a skewed fake Swift."""

from __future__ import annotations

import datetime
import queue
import random
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pykka
import pytest

from thermik.delivery import document
from thermik.delivery.base import ServerRef
from thermik.delivery.fakeswift_cluster import FakeSwiftCluster, Knobs
from thermik.delivery.impl_fakeswift import FakeSwiftBackend
from thermik.delivery.messages import (
    DeliveryReport,
    MetadataChanged,
    MetadataDelivered,
    MetadataDeliveryFailed,
)
from thermik.delivery.metadata_actor import EffectRunner, Quiesce, ServerMetadataActor
from thermik.delivery.metadata_writer import DeliveryPolicy
from thermik.delivery.stores import InMemoryDeployments, InMemoryGenerationStore

FAST = DeliveryPolicy(
    initial_backoff=0.01,
    max_backoff=0.1,
    failure_backoff=0.02,
    max_attempts=3,
    recovery_interval=0.05,
)
WHEN = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


@pytest.fixture(autouse=True)
def stop_actors() -> Iterator[None]:
    yield
    pykka.ActorRegistry.stop_all()


@pytest.fixture
def executor() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(8) as pool:
        yield pool


class World:
    """One server's endpoint on a fake Swift whose proxies disagree by up to 0.3 s."""

    def __init__(self, skew: float = 0.15) -> None:
        knobs = Knobs(
            proxy_offsets=(0.0, -skew, skew),
            latency=(0.0005, 0.002),
            commit_delay=(0.001, 0.004),
        )
        self.cluster = FakeSwiftCluster(knobs, seed=4)
        self.backend = FakeSwiftBackend(self.cluster)
        self.endpoint = self.backend.provision(ServerRef("srv"))
        self.generations = InMemoryGenerationStore()
        self.deployments = InMemoryDeployments()
        self.deployments.add_server(
            "srv", self.endpoint.collector, self.endpoint.collector_settings
        )
        self.reports: queue.Queue[DeliveryReport] = queue.Queue()

    def start(self, executor: ThreadPoolExecutor, seed: int = 0) -> pykka.ActorRef[object]:
        runner = EffectRunner(self.endpoint, self.backend, self.generations, self.deployments)
        return ServerMetadataActor.start(
            runner=runner,
            executor=executor,
            notify=self.reports.put,
            policy=FAST,
            rng=random.Random(seed),
        )

    def add(self, index: int) -> None:
        facts = document.DeploymentFacts(
            server_id="srv",
            action="CREATE",
            stack_path="s/1",
            resource_name=f"d{index}",
            signal_transport="NO_SIGNAL",
            physical_name=f"s-d{index}",
        )
        config = document.derive_config(
            document.SourceConfig(name=f"c{index:02d}"),
            facts,
            config_id=f"id{index}",
            created_at=WHEN,
        )
        self.deployments.put_deployment("srv", f"d{index}", config)

    def served_ids(self) -> set[str]:
        return document.deployment_ids(self.backend.read_back(self.endpoint))

    def wait_for(self, kind: type[DeliveryReport], timeout: float = 20.0) -> DeliveryReport:
        while True:
            report = self.reports.get(timeout=timeout)
            if isinstance(report, kind):
                return report

    def wait_until_latest_delivered(self, timeout: float = 20.0) -> MetadataDelivered:
        while True:
            report = self.wait_for(MetadataDelivered, timeout)
            assert isinstance(report, MetadataDelivered)
            if report.generation == self.generations.get_metadata_generation("srv"):
                return report


def settle(actors: list[pykka.ActorRef[object]], timeout: float = 20.0) -> None:
    """Wait until every writer has nothing in flight (asking the actors: a test edge)."""
    deadline = time.monotonic() + timeout
    while not all(a.proxy().writer.get().idle for a in actors):  # type: ignore[attr-defined]
        assert time.monotonic() < deadline, "writers did not settle"
        time.sleep(0.01)


def race(world: World, actors: list[pykka.ActorRef[object]], count: int) -> None:
    barrier = threading.Barrier(count)

    def create(index: int) -> None:
        barrier.wait()
        world.add(index)
        actors[index % len(actors)].tell(MetadataChanged("srv"))

    threads = [threading.Thread(target=create, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_twenty_racing_deployments_are_all_served(executor: ThreadPoolExecutor) -> None:
    world = World()
    race(world, [world.start(executor)], 20)
    report = world.wait_until_latest_delivered()
    assert world.served_ids() == {f"id{i}" for i in range(20)}
    assert report.writes <= 20


def test_two_engine_processes_writing_one_server_lose_nothing(
    executor: ThreadPoolExecutor,
) -> None:
    world = World()
    actors = [world.start(executor, seed=1), world.start(executor, seed=2)]
    race(world, actors, 20)
    world.wait_until_latest_delivered()
    settle(actors)
    assert world.served_ids() == {f"id{i}" for i in range(20)}
    served = world.backend.read_back(world.endpoint)
    assert document.generation_of(served) >= world.generations.get_metadata_generation("srv")


def test_an_outage_is_reported_and_delivery_resumes_when_swift_returns(
    executor: ThreadPoolExecutor,
) -> None:
    world = World()
    world.cluster.configure(down=True)
    actor = world.start(executor)
    world.add(1)
    actor.tell(MetadataChanged("srv"))
    failed = world.wait_for(MetadataDeliveryFailed)
    assert isinstance(failed, MetadataDeliveryFailed)
    assert failed.failure.type_name == "DeliveryUnavailable"
    assert "connection refused" in failed.failure.message
    world.cluster.configure(down=False)
    delivered = world.wait_for(MetadataDelivered)
    assert isinstance(delivered, MetadataDelivered)
    assert delivered.recovered
    assert world.served_ids() == {"id1"}


def test_stopping_the_actor_cancels_its_backoffs(executor: ThreadPoolExecutor) -> None:
    world = World()
    world.cluster.configure(down=True)
    actor = world.start(executor)
    world.add(1)
    actor.tell(MetadataChanged("srv"))
    world.wait_for(MetadataDeliveryFailed)
    actor.stop()
    assert not actor.is_alive()


def test_a_quiesced_writer_lets_its_write_land_and_starts_no_more(
    executor: ThreadPoolExecutor,
) -> None:
    world = World(skew=0.0)
    world.cluster.configure(latency=(0.2, 0.2))  # every request takes its time
    actor = world.start(executor)
    world.add(1)
    actor.tell(MetadataChanged("srv"))
    time.sleep(0.05)  # the first write is on its way
    actor.ask(Quiesce(), timeout=10)
    served = world.served_ids()
    world.add(2)
    actor.tell(MetadataChanged("srv"))
    time.sleep(0.6)
    assert world.served_ids() == served  # nothing is written after the quiesce
    actor.stop()
