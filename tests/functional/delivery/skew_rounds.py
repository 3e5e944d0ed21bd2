"""Race rounds against the real Swift through two proxies whose clocks disagree.

A round is one server and its own metadata object: twenty deployments are committed at once
(threads released by a barrier) and delivered either by Thermik's
:class:`~thermik.delivery.metadata_actor.ServerMetadataActor` or by Heat's double
compare-and-swap push (one push per deployment, as Heat's engine workers do). The backend sends
each write and read-back through proxy A or the lagging proxy B at random, so a write through B
soon after one through A is answered 202 and dropped, as on a cluster behind a load balancer.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import random
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import Executor
from typing import Any

import pykka
import swiftclient

from thermik.delivery.base import MetadataEndpoint, PublishResult, ServerRef
from thermik.delivery.document import deployment_ids, generation_of, with_generation
from thermik.delivery.impl_swift import SwiftBackend
from thermik.delivery.messages import DeliveryReport, MetadataChanged, MetadataDelivered
from thermik.delivery.metadata_actor import EffectRunner, ServerMetadataActor
from thermik.delivery.race import racing_deployment
from thermik.delivery.stores import InMemoryDeployments, InMemoryGenerationStore
from thermik.errors import DeliveryError

DEPLOYMENTS = 20
HEAT_ATTEMPTS = 11


class CountingSwiftBackend(SwiftBackend):
    """The swift backend, counting the object writes it made and those Swift dropped (202)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.counts: dict[str, int] = {}
        self._count_lock = threading.Lock()

    def publish(self, endpoint: MetadataEndpoint, document: Mapping[str, Any]) -> PublishResult:
        result = super().publish(endpoint, document)
        key = endpoint.server_id
        with self._count_lock:
            self.counts[key] = self.counts.get(key, 0) + 1
            if not result.applied:
                self.counts[f"{key}/dropped"] = self.counts.get(f"{key}/dropped", 0) + 1
        return result


@dataclasses.dataclass(frozen=True, slots=True)
class RoundResult:
    """How a round ended: deployments missing from the served document, generations, writes."""

    missing: int
    served_generation: int
    latest_generation: int
    writes: int
    dropped: int

    @property
    def stale(self) -> bool:
        """The served document is older than the latest the database holds."""
        return self.served_generation < self.latest_generation


class SkewWorld:
    """What rounds share: the backend over both proxies, the in-memory database, an executor."""

    def __init__(
        self, backend: CountingSwiftBackend, executor: Executor, proxy_a: swiftclient.Connection
    ) -> None:
        self.backend = backend
        self.executor = executor
        self._proxy_a = proxy_a
        self._proxy_a_lock = threading.Lock()
        self.generations = InMemoryGenerationStore()
        self.deployments = InMemoryDeployments()

    def new_server(self) -> MetadataEndpoint:
        """A server with its own metadata object, registered in the database.

        Its first (empty) document is written through proxy A, as when the server was created
        just before: any write through B in the next two seconds is then dropped.
        """
        server_id = str(uuid.uuid4())
        endpoint = self.backend.provision(ServerRef(server_id))
        self.deployments.add_server(server_id, endpoint.collector, endpoint.collector_settings)
        document = with_generation(self.deployments.metadata_document(server_id), 0)
        locator = endpoint.locator
        with self._proxy_a_lock:
            self._proxy_a.put_object(
                locator["container"], locator["object"], json.dumps(document).encode()
            )
        return endpoint

    def commit_deployment(self, server_id: str, index: int) -> str:
        """Insert deployment ``index`` of a server; returns its config id."""
        config_id = f"{server_id}-cfg-{index:02d}"
        derived = racing_deployment(server_id, index, config_id)
        self.deployments.put_deployment(server_id, f"dep-{index}", derived)
        return config_id

    def at_once(self, server_id: str, then: Callable[[], None]) -> set[str]:
        """Commit every deployment from its own thread, all released together, each then
        calling ``then``; returns the config ids once every thread is done."""
        barrier = threading.Barrier(DEPLOYMENTS)
        ids: set[str] = set()

        def arrive(index: int) -> None:
            barrier.wait()
            ids.add(self.commit_deployment(server_id, index))
            then()

        threads = [threading.Thread(target=arrive, args=(n,)) for n in range(DEPLOYMENTS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return ids

    def result(self, endpoint: MetadataEndpoint, expected: set[str], latest: int) -> RoundResult:
        """Compare what Swift serves now (read through both proxies) with the database."""
        served = [self.backend.read_back(endpoint) for _ in range(4)]
        generations = {generation_of(doc) for doc in served}
        assert len(generations) == 1, f"the proxies serve different documents: {generations}"
        counts = self.backend.counts
        return RoundResult(
            missing=len(expected - deployment_ids(served[0])),
            served_generation=generation_of(served[0]),
            latest_generation=latest,
            writes=counts.get(endpoint.server_id, 0),
            dropped=counts.get(f"{endpoint.server_id}/dropped", 0),
        )


def thermik_round(world: SkewWorld, seed: int, timeout: float = 60.0) -> RoundResult:
    """One round delivered by a ServerMetadataActor; waits until it is idle and delivered."""
    endpoint = world.new_server()
    server_id = endpoint.server_id
    reports: list[DeliveryReport] = []
    runner = EffectRunner(endpoint, world.backend, world.generations, world.deployments)
    actor = ServerMetadataActor.start(
        runner=runner, executor=world.executor, notify=reports.append, rng=random.Random(seed)
    )
    try:
        expected = world.at_once(server_id, lambda: actor.tell(MetadataChanged(server_id)))
        deadline = time.monotonic() + timeout
        # Asking goes through the mailbox, so every change told above has been seen first.
        while not actor.proxy().writer.get().idle or not reports:
            if time.monotonic() > deadline:
                raise AssertionError(f"round {seed}: not delivered in {timeout}s: {reports}")
            time.sleep(0.05)
        latest = world.generations.get_metadata_generation(server_id)
        assert isinstance(reports[-1], MetadataDelivered), reports[-1]
        assert reports[-1].generation == latest, (reports[-1], latest)
        return world.result(endpoint, expected, latest)
    finally:
        with contextlib.suppress(pykka.ActorDeadError):
            actor.stop()


@dataclasses.dataclass(slots=True)
class HeatRow:
    """Heat's server row: the atomic key its compare-and-swaps change."""

    atomic_key: int = 0
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)

    def swap(self, expected: int) -> bool:
        with self.lock:
            if self.atomic_key != expected:
                return False
            self.atomic_key = expected + 1
            return True


def heat_push(world: SkewWorld, endpoint: MetadataEndpoint, row: HeatRow) -> None:
    """Heat's push (46132999c0): CAS k->k+1, PUT (any 2xx is fine), CAS k+1->k+2; backoff
    ``wait_random_exponential(multiplier=0.5, max=60)`` scaled ten times down."""
    for attempt in range(1, HEAT_ATTEMPTS + 1):
        key = row.atomic_key
        document = world.deployments.metadata_document(endpoint.server_id)
        if row.swap(key):
            # Heat logs "Failed to deliver deployment data" and carries on.
            with contextlib.suppress(DeliveryError):
                world.backend.publish(endpoint, with_generation(document, key + 1))
            if row.swap(key + 1):
                return
        time.sleep(random.uniform(0, min(6.0, 0.05 * 2 ** (attempt - 1))))


def heat_round(world: SkewWorld) -> RoundResult:
    """One round delivered by Heat's algorithm, one push per deployment."""
    endpoint = world.new_server()
    row = HeatRow()
    expected = world.at_once(endpoint.server_id, lambda: heat_push(world, endpoint, row))
    # The served document must be the last one pushed: the newest generation is k+1 of the
    # last successful first swap, which is the final atomic key minus one.
    return world.result(endpoint, expected, row.atomic_key - 1)
