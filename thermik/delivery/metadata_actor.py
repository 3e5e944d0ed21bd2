"""``ServerMetadataActor``: one pykka actor per server, serialising its metadata delivery.

The actor is a thin shell around :class:`~thermik.delivery.metadata_writer.MetadataWriter`:
it feeds the writer its mail and executes the writer's commands. Effects (database reads and
bumps, object writes, read-backs) run on a shared ``concurrent.futures`` executor and come back
as :class:`~thermik.delivery.messages.EffectDone` by ``tell``; backoffs are timers that
``tell`` :class:`~thermik.delivery.messages.TimerFired`. The actor thread never blocks on I/O.
Reports go to the ``notify`` callback (typically another actor's ``tell``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import random
import threading
import time
from collections.abc import Callable
from concurrent import futures
from concurrent.futures import Executor, Future
from typing import Any

import pykka

from thermik.delivery.base import DeliveryBackend, MetadataEndpoint
from thermik.delivery.document import generation_of, with_generation
from thermik.delivery.messages import (
    DeliveryReport,
    EffectDone,
    MetadataChanged,
    Outcome,
    TimerFired,
)
from thermik.delivery.metadata_writer import (
    Command,
    DeliveryPolicy,
    Effect,
    Emit,
    MetadataWriter,
    ReadGeneration,
    ReadServedGeneration,
    RunEffect,
    Snapshot,
    StartTimer,
    TakeSnapshot,
    WriteDocument,
)
from thermik.delivery.stores import GenerationStore, MetadataSource
from thermik.errors import DeliveryError, Failure, GenerationConflict

LOG = logging.getLogger(__name__)
#: Longest wait, when the actor stops, for the delivery effects it still has running.
STOP_GRACE = 10.0

_MAX_BUMP_RACES = 50


class EffectRunner:
    """Runs a writer's effects for one server, blocking (call it on an executor)."""

    def __init__(
        self,
        endpoint: MetadataEndpoint,
        backend: DeliveryBackend,
        generations: GenerationStore,
        source: MetadataSource,
    ) -> None:
        self.endpoint = endpoint
        self.backend = backend
        self.generations = generations
        self.source = source

    @property
    def server_id(self) -> str:
        """The server whose document this runner writes."""
        return self.endpoint.server_id

    def snapshot(self, bump: bool) -> Snapshot:
        """The current document, labelled with a freshly bumped (or the current) generation."""
        generation = (
            self.bump() if bump else self.generations.get_metadata_generation(self.server_id)
        )
        document = self.source.metadata_document(self.server_id)
        return Snapshot(generation, with_generation(document, generation))

    def bump(self) -> int:
        """Bump the generation, re-reading it whenever another writer bumped first."""
        for _ in range(_MAX_BUMP_RACES):
            expected = self.generations.get_metadata_generation(self.server_id)
            try:
                return self.generations.bump_metadata_generation(self.server_id, expected)
            except GenerationConflict:
                continue
        raise GenerationConflict(
            f"metadata generation of server {self.server_id} kept moving "
            f"({_MAX_BUMP_RACES} compare-and-swap races lost in a row)"
        )

    def run(self, effect: Effect) -> object:
        """Run one effect; raises ThermikError subclasses on failure."""
        match effect:
            case TakeSnapshot(bump=bump):
                return self.snapshot(bump)
            case WriteDocument(document=document):
                return self.backend.publish(self.endpoint, document)
            case ReadGeneration():
                return self.generations.get_metadata_generation(self.server_id)
            case ReadServedGeneration():
                return generation_of(self.backend.read_back(self.endpoint))
        raise DeliveryError(f"unknown delivery effect {effect!r}")


def outcome_of(future: Future[object]) -> Outcome:
    """A finished future as an Outcome; any exception becomes a Failure value."""
    if future.cancelled():
        return Outcome(failure=Failure("CancelledError", "the executor was shut down", True))
    exc = future.exception()
    if exc is None:
        return Outcome(future.result())
    if not isinstance(exc, DeliveryError | GenerationConflict):
        LOG.error("metadata delivery effect failed unexpectedly", exc_info=exc)
    return Outcome(failure=Failure.from_exception(exc))


@dataclasses.dataclass(frozen=True, slots=True)
class Quiesce:
    """Ask it of a :class:`ServerMetadataActor` before stopping it: it starts no more effects
    and answers once those running have finished (or after :data:`STOP_GRACE`)."""


class ServerMetadataActor(pykka.ThreadingActor):
    """Owns one server's metadata document; tell it :class:`MetadataChanged`.

    Failure semantics: effects that fail are retried by the writer; persistent failure is
    reported through ``notify`` and retried slowly until the actor stops. An exception in the
    actor itself (a bug) stops it, as pykka does; its supervisor sees the actor dead.
    """

    def __init__(
        self,
        *,
        runner: EffectRunner,
        executor: Executor,
        notify: Callable[[DeliveryReport], None],
        policy: DeliveryPolicy | None = None,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        super().__init__()
        self._runner = runner
        self._executor = executor
        self._notify = notify
        self._writer = MetadataWriter(runner.server_id, policy, clock=clock, rng=rng)
        self._timers: set[threading.Timer] = set()
        self._running: set[Future[object]] = set()
        self._quiet = False

    def on_receive(self, message: Any) -> Any:
        """Dispatch the actor's mail to the writer and run what it asks for."""
        match message:
            case MetadataChanged():
                self._execute(self._writer.changed())
            case EffectDone(token=token, outcome=outcome):
                self._execute(self._writer.effect_done(token, outcome))
            case TimerFired(token=token):
                self._execute(self._writer.timer_fired(token))
            case Quiesce():
                # The server is going away: start nothing more, and let what runs land now
                # rather than after its endpoint is revoked.
                self._quiet = True
                futures.wait(self._running, timeout=STOP_GRACE)
            case _:
                LOG.warning("ServerMetadataActor ignores %r", message)
        return None

    def on_stop(self) -> None:
        """Cancel pending backoffs; effects still running finish into a dead letter box."""
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()

    def _tell(self, message: EffectDone | TimerFired) -> None:
        with contextlib.suppress(pykka.ActorDeadError):
            self.actor_ref.tell(message)

    def _execute(self, commands: list[Command]) -> None:
        if self._quiet:
            return
        for command in commands:
            match command:
                case RunEffect(token=token, effect=effect):
                    future = self._executor.submit(self._runner.run, effect)
                    self._running = {f for f in self._running if not f.done()}
                    self._running.add(future)
                    future.add_done_callback(self._effect_callback(token))
                case StartTimer(token=token, delay=delay):
                    self._start_timer(token, delay)
                case Emit(report=report):
                    self._notify(report)

    def _effect_callback(self, token: int) -> Callable[[Future[object]], None]:
        def done(future: Future[object]) -> None:
            self._tell(EffectDone(token, outcome_of(future)))

        return done

    def _start_timer(self, token: int, delay: float) -> None:
        timer = threading.Timer(delay, self._fire, args=(token,))
        timer.daemon = True
        self._timers = {t for t in self._timers if t.is_alive()}
        self._timers.add(timer)
        timer.start()

    def _fire(self, token: int) -> None:
        self._tell(TimerFired(token))

    @property
    def writer(self) -> MetadataWriter:
        """The state machine (read its counters in tests through a proxy or ``ask``)."""
        return self._writer
