"""A deterministic race: many deployments for one server, delivered through a skewed fake Swift.

Used by the test suite and ``bench/delivery_bench.py``. One round builds a :class:`RaceWorld`
on a virtual clock (a fake Swift cluster whose proxies have skewed clocks, the in-memory
generation store and deployment table, database latency), lets deployments arrive, and drives
one :class:`~thermik.delivery.metadata_writer.MetadataWriter` per engine process exactly as the
actor does, only with simulated time. Everything random derives from the round's seed.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import json
import random
from collections.abc import Callable, Mapping
from typing import Any

from thermik.delivery.base import ServerRef
from thermik.delivery.document import (
    DeploymentFacts,
    DerivedConfig,
    SourceConfig,
    deployment_ids,
    derive_config,
    generation_of,
    with_generation,
)
from thermik.delivery.fakeswift_cluster import FakeSwiftCluster, Knobs
from thermik.delivery.impl_fakeswift import FakeSwiftBackend
from thermik.delivery.messages import DeliveryReport, MetadataDelivered, Outcome
from thermik.delivery.metadata_actor import EffectRunner
from thermik.delivery.metadata_writer import (
    Command,
    DeliveryPolicy,
    Effect,
    Emit,
    MetadataWriter,
    ReadServedGeneration,
    RunEffect,
    Snapshot,
    StartTimer,
    TakeSnapshot,
    WriteDocument,
)
from thermik.delivery.simulation import Delay, Process, Simulation
from thermik.delivery.stores import InMemoryDeployments, InMemoryGenerationStore
from thermik.errors import Failure, ThermikError

SERVER = "srv-race"
SOURCE = SourceConfig(name="race", group="script", config="#!/bin/sh\ntrue\n")
EPOCH = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
NETWORK = Knobs(
    latency=(0.001, 0.005),
    commit_delay=(0.004, 0.015),
    reorder_probability=0.1,
    reorder_delay=0.02,
)
"""Loopback-like latency; a stamp-to-commit delay that reorders concurrent writes as Swift's
object servers do (within a few milliseconds)."""


@dataclasses.dataclass(frozen=True, slots=True)
class RaceConfig:
    """One round's workload and environment. Times are seconds.

    Each of ``proxies`` proxies gets a clock offset drawn uniformly from ``[-max_skew,
    max_skew]``; deployments arrive uniformly within ``arrival_spread`` (a few milliseconds:
    "created at once"; a second: one after another) and deployment ``i`` is handled by engine
    process ``i % engines``. ``outages`` are ``(start, end)`` windows when Swift refuses
    connections.
    """

    deployments: int = 20
    engines: int = 1
    arrival_spread: float = 0.005
    proxies: int = 3
    max_skew: float = 2.0
    knobs: Knobs = dataclasses.field(default_factory=lambda: NETWORK)
    db_latency: tuple[float, float] = (0.0005, 0.002)
    outages: tuple[tuple[float, float], ...] = ()
    policy: DeliveryPolicy = dataclasses.field(default_factory=DeliveryPolicy)
    horizon: float = 3600.0


@dataclasses.dataclass(frozen=True, slots=True)
class RoundResult:
    """What a round ended with.

    ``missing`` counts deployments absent from the document finally served; ``stale`` says the
    served generation is older than the database's; ``full_at`` is when the store first served
    every deployment (seconds after the first arrival) and ``confirmed_at`` when the last
    writer reported delivery.
    """

    writes: int
    dropped_writes: int
    missing: int
    stale: bool
    full_at: float | None
    confirmed_at: float | None
    reports: tuple[DeliveryReport, ...]


def racing_deployment(server_id: str, index: int, config_id: str) -> DerivedConfig:
    """Deployment ``index`` of a race round, a trivial script with its own ``config_id``."""
    facts = DeploymentFacts(
        server_id=server_id,
        action="CREATE",
        stack_path="race/1",
        resource_name=f"deployment_{index}",
        signal_transport="NO_SIGNAL",
        physical_name=f"race-deployment_{index}",
        name=f"step-{index:04d}",
    )
    return derive_config(SOURCE, facts, config_id=config_id, created_at=EPOCH)


class RaceWorld:
    """The shared environment of one round: clock, store, database, arrivals."""

    def __init__(self, config: RaceConfig, seed: int) -> None:
        self.config = config
        self.rng = random.Random(seed)
        self.sim = Simulation()
        self.start = self.sim.now
        offsets = tuple(
            self.rng.uniform(-config.max_skew, config.max_skew) for _ in range(config.proxies)
        )
        knobs = dataclasses.replace(config.knobs, proxy_offsets=offsets)
        self.cluster = FakeSwiftCluster(
            knobs, seed=self.rng.randrange(2**32), clock=self.sim.clock
        )
        self.backend = FakeSwiftBackend(self.cluster)
        self.endpoint = self.backend.provision(ServerRef(SERVER))
        self.generations = InMemoryGenerationStore()
        self.deployments = InMemoryDeployments()
        self.deployments.add_server(
            SERVER, self.endpoint.collector, self.endpoint.collector_settings
        )
        self.expected: set[str] = set()
        self.full_at: float | None = None
        for start, end in config.outages:
            self.sim.call_later(start, lambda: self.cluster.configure(down=True))
            self.sim.call_later(end, lambda: self.cluster.configure(down=False))

    def db_delay(self) -> Delay:
        """One database round trip."""
        return Delay(self.rng.uniform(*self.config.db_latency))

    def schedule_arrivals(self, on_committed: Callable[[int], None]) -> None:
        """Insert every deployment at its arrival time; ``on_committed(i)`` after the commit."""
        for index in range(self.config.deployments):
            at = self.rng.uniform(0.0, self.config.arrival_spread)
            self.sim.call_later(at, functools.partial(self._insert, index, on_committed))

    def _insert(self, index: int, on_committed: Callable[[int], None]) -> None:
        config_id = f"cfg-{index:04d}"
        derived = racing_deployment(SERVER, index, config_id)
        self.deployments.put_deployment(SERVER, f"dep-{index}", derived)
        self.expected.add(config_id)
        self.sim.call_later(self.db_delay().seconds, functools.partial(on_committed, index))

    def served(self) -> Mapping[str, Any] | None:
        """What the store holds now (the newest committed version)."""
        body = self.cluster.stored(self.endpoint.locator["path"])
        return None if body is None else dict(json.loads(body))

    def note_write(self) -> None:
        """Record when the store first serves every deployment."""
        if self.full_at is None and self.missing() == 0:
            self.full_at = self.sim.now - self.start

    def missing(self) -> int:
        """Deployments the served document lacks."""
        return len(self.expected - deployment_ids(self.served()))

    def stale(self, latest: int) -> bool:
        """The served document is older than generation ``latest``."""
        return generation_of(self.served()) < latest


class SimulatedWriter:
    """Drives one MetadataWriter on the world's virtual clock, the way the actor does."""

    def __init__(self, world: RaceWorld, seed: int) -> None:
        self.world = world
        self.runner = EffectRunner(
            world.endpoint, world.backend, world.generations, world.deployments
        )
        self.writer = MetadataWriter(
            SERVER, world.config.policy, clock=world.sim.clock, rng=random.Random(seed)
        )
        self.reports: list[tuple[float, DeliveryReport]] = []

    def changed(self) -> None:
        """Mail: a change was committed."""
        self._execute(self.writer.changed())

    def _execute(self, commands: list[Command]) -> None:
        sim = self.world.sim
        for command in commands:
            match command:
                case RunEffect(token=token, effect=effect):
                    sim.spawn(self._process(effect), *self._answers(token))
                case StartTimer(token=token, delay=delay):
                    sim.call_later(delay, self._timer(token))
                case Emit(report=report):
                    self.reports.append((sim.now - self.world.start, report))

    def _answers(
        self, token: int
    ) -> tuple[Callable[[object], None], Callable[[ThermikError], None]]:
        def done(value: object) -> None:
            self._execute(self.writer.effect_done(token, Outcome(value)))

        def failed(exc: ThermikError) -> None:
            failure = Failure.from_exception(exc)
            self._execute(self.writer.effect_done(token, Outcome(failure=failure)))

        return done, failed

    def _timer(self, token: int) -> Callable[[], None]:
        return lambda: self._execute(self.writer.timer_fired(token))

    def _process(self, effect: Effect) -> Process[object]:
        world = self.world
        match effect:
            case WriteDocument(document=document):
                result = yield from world.backend.publish_process(world.endpoint, document)
                world.note_write()
                return result
            case TakeSnapshot(bump=True):
                yield world.db_delay()
                generation = self.runner.bump()
                yield world.db_delay()
                document = world.deployments.metadata_document(SERVER)
                return Snapshot(generation, with_generation(document, generation))
            case ReadServedGeneration():
                served = yield from world.backend.read_back_process(world.endpoint)
                return generation_of(served)
        yield world.db_delay()
        return self.runner.run(effect)


def run_round(config: RaceConfig, seed: int) -> RoundResult:
    """Play one round with Thermik's writers and report how it ended."""
    world = RaceWorld(config, seed)
    writers = [SimulatedWriter(world, seed * 1000 + n) for n in range(config.engines)]
    world.schedule_arrivals(lambda i: writers[i % config.engines].changed())
    world.sim.run(until=world.start + config.horizon)
    reports = sorted((r for w in writers for r in w.reports), key=lambda pair: pair[0])
    delivered = [at for at, r in reports if isinstance(r, MetadataDelivered)]
    latest = world.generations.get_metadata_generation(SERVER)
    return RoundResult(
        writes=sum(w.writer.total_writes for w in writers),
        dropped_writes=world.cluster.counters.puts_dropped,
        missing=world.missing(),
        stale=world.stale(latest),
        full_at=world.full_at,
        confirmed_at=max(delivered) if delivered else None,
        reports=tuple(r for _, r in reports),
    )
