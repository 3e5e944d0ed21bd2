"""One :class:`~thermik.delivery.metadata_actor.ServerMetadataActor` per server, on demand.

:class:`MetadataWriters` starts a server's actor when its deployments change and stops it
once it has delivered and has no mail left, so idle servers cost nothing. Every report goes
to the ``on_report`` callback (called on the actor's thread: it must not block).

:class:`DeliveryTracker` turns reports into what deployments need to know: a deployment
committed when the server's generation was ``mark`` is delivered once a document of a later
generation is served; while delivery to its server is failing and it is not delivered yet, it
fails with the writer's reason.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Callable
from concurrent.futures import Executor

import pykka

from thermik.delivery.base import DeliveryBackend
from thermik.delivery.messages import (
    DeliveryReport,
    MetadataChanged,
    MetadataDelivered,
    MetadataDeliveryFailed,
)
from thermik.delivery.metadata_actor import (
    STOP_GRACE,
    EffectRunner,
    Quiesce,
    ServerMetadataActor,
)
from thermik.delivery.metadata_writer import DeliveryPolicy
from thermik.delivery.stores import GenerationStore
from thermik.deployments.source import ServerEndpoints, StoreMetadataSource
from thermik.errors import NotFound


class MetadataWriters:
    """The live metadata actors of one engine, by server id."""

    def __init__(
        self,
        *,
        backend: DeliveryBackend,
        generations: GenerationStore,
        endpoints: ServerEndpoints,
        source: StoreMetadataSource,
        executor: Executor,
        policy: DeliveryPolicy,
        on_report: Callable[[DeliveryReport], None],
    ) -> None:
        self._backend = backend
        self._generations = generations
        self._endpoints = endpoints
        self._source = source
        self._executor = executor
        self._policy = policy
        self._on_report = on_report
        self._actors: dict[str, pykka.ActorRef[ServerMetadataActor]] = {}
        self._lock = threading.Lock()
        self._closed = False
        #: Object writes of every delivery round so far (for tests and benchmarks).
        self.writes = 0

    def changed(self, server_id: str) -> None:
        """The server's deployments changed (committed): deliver its document.

        Raises:
            NotFound: the server has no metadata endpoint.
        """
        with self._lock:
            if self._closed:
                return
            ref = self._actors.get(server_id)
            if ref is None:
                ref = self._start(server_id)
                self._actors[server_id] = ref
            ref.tell(MetadataChanged(server_id))

    def _start(self, server_id: str) -> pykka.ActorRef[ServerMetadataActor]:
        record = self._endpoints.get(server_id)
        if record is None:
            raise NotFound(f"server {server_id} has no metadata endpoint")
        runner = EffectRunner(record.endpoint, self._backend, self._generations, self._source)

        def notify(report: DeliveryReport) -> None:
            self._report(server_id, report)

        return ServerMetadataActor.start(
            runner=runner, executor=self._executor, notify=notify, policy=self._policy
        )

    def _report(self, server_id: str, report: DeliveryReport) -> None:
        if isinstance(report, MetadataDelivered):
            with self._lock:
                self.writes += report.writes
        self._on_report(report)
        if isinstance(report, MetadataDelivered):
            self._retire_if_idle(server_id)

    def _retire_if_idle(self, server_id: str) -> None:
        # Called on the actor's own thread right after its writer went idle: with the lock
        # held no new change can reach it, so an empty mailbox means nothing is left to do.
        with self._lock:
            ref = self._actors.get(server_id)
            if ref is None or not ref.actor_inbox.empty():
                return
            del self._actors[server_id]
        ref.stop(block=False)

    def stop(self, server_id: str) -> None:
        """Stop the server's actor, delivered or not (its server is going away), and wait
        until no write of its can land any more."""
        with self._lock:
            ref = self._actors.pop(server_id, None)
        if ref is not None:
            with contextlib.suppress(pykka.ActorDeadError, pykka.Timeout):
                ref.ask(Quiesce(), timeout=STOP_GRACE + 5)
            ref.stop(block=False)

    def live(self) -> list[str]:
        """Servers whose actor runs now."""
        with self._lock:
            return sorted(self._actors)

    def close(self) -> None:
        """Stop every actor and accept no more changes."""
        with self._lock:
            self._closed = True
            refs, self._actors = list(self._actors.values()), {}
        for ref in refs:
            ref.stop(block=False)
        for ref in refs:
            ref.actor_stopped.wait(5)


@dataclasses.dataclass(slots=True)
class _ServerState:
    delivered: int = 0
    failing: str | None = None


class DeliveryTracker:
    """Delivery state per server, and the generation each waiting deployment needs."""

    def __init__(self) -> None:
        self._servers: dict[str, _ServerState] = {}
        self._marks: dict[str, tuple[str, int]] = {}
        self._lock = threading.Lock()

    def expect(self, deployment_id: str, server_id: str, mark: int) -> None:
        """The deployment's change was committed when the server's generation was ``mark``."""
        with self._lock:
            self._marks[deployment_id] = (server_id, mark)

    def forget(self, deployment_id: str) -> None:
        """The deployment no longer waits for delivery."""
        with self._lock:
            self._marks.pop(deployment_id, None)

    def report(self, report: DeliveryReport) -> None:
        """Record what a server's writer reported."""
        with self._lock:
            state = self._servers.setdefault(report.server_id, _ServerState())
            if isinstance(report, MetadataDelivered):
                state.delivered = max(state.delivered, report.generation)
                state.failing = None
            elif isinstance(report, MetadataDeliveryFailed):
                state.failing = report.failure.detail

    def knows(self, server_id: str) -> bool:
        """Whether a writer of this process reported on the server."""
        with self._lock:
            return server_id in self._servers

    def failure_for(self, deployment_id: str) -> str | None:
        """Why the deployment's metadata cannot be delivered, or None."""
        with self._lock:
            found = self._marks.get(deployment_id)
            if found is None:
                return None
            server_id, mark = found
            state = self._servers.get(server_id)
            if state is None or state.failing is None or state.delivered > mark:
                return None
            return state.failing
