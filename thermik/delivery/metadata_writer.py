"""The per-server metadata writer: when to write, re-check, read back and retry (no I/O).

One writer owns one server's document. It turns events (a change was committed, an effect
finished, a backoff elapsed) into commands (run this effect, start that timer, emit this
report); the actor shell (:mod:`thermik.delivery.metadata_actor`) and the simulation harness
(:mod:`thermik.delivery.race`) execute the commands. The algorithm, after the measurements in
the design's §3:

1. **Coalesce.** Changes that arrive while a delivery is in flight only mark it dirty; the
   next snapshot covers all of them.
2. **Bump, then read.** A snapshot bumps the server's generation by compare-and-swap and *then*
   builds the document from the database, labelled with that generation. Any document labelled
   with generation g or later therefore contains every change committed before the bump to g,
   whichever engine process wrote it.
3. **Write, re-check, read back.** After the write, read the database's *current* generation
   (Heat's guard: another engine may have moved on) and the generation the agent is served.
   Delivered means served >= current; a 2xx write proves nothing (Swift answers 202 and drops
   a write that lost to a later-stamped object, and replicas lag).
4. **Write the latest, never a remembered body.** If the current generation moved past the
   snapshot, take a new (unbumped) snapshot at it; then back off and write again, until served.
5. **Never only a log line.** Failing effects are retried with jittered exponential backoff;
   after ``max_attempts`` consecutive failures, on a non-retryable failure, or when a written
   generation stays unserved past ``stuck_after``, the writer emits
   :class:`~thermik.delivery.messages.MetadataDeliveryFailed` and keeps trying at a low rate;
   success afterwards is reported as ``recovered``.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Generator, Mapping
from typing import Any

import tenacity

from thermik.conf.settings import DeliverySettings
from thermik.delivery.messages import (
    DeliveryReport,
    MetadataDelivered,
    MetadataDeliveryFailed,
    Outcome,
)
from thermik.errors import DeliveryStuck, Failure


@dataclasses.dataclass(frozen=True, slots=True)
class DeliveryPolicy:
    """Timing of a writer, in seconds.

    Backoff between verification rounds grows from ``initial_backoff`` to ``max_backoff``;
    between failed attempts of one effect it grows to ``failure_backoff`` (``max_attempts``
    failures take 5 to 10 seconds with the defaults), and to ``recovery_interval`` once a
    failure has been reported. ``stuck_after`` must exceed the largest clock difference
    between Swift proxies plus one backoff step: a write through a lagging proxy is accepted
    only once its clock passes the stored object's stamp.
    """

    initial_backoff: float = 0.1
    max_backoff: float = 1.0
    failure_backoff: float = 4.0
    max_attempts: int = 8
    stuck_after: float = 30.0
    recovery_interval: float = 30.0
    coalesce_rounds: int = 2

    @classmethod
    def from_settings(cls, settings: DeliverySettings) -> DeliveryPolicy:
        """The default policy with ``[delivery] write_retries`` as ``max_attempts``."""
        return cls(max_attempts=max(1, settings.write_retries))


@dataclasses.dataclass(frozen=True, slots=True)
class Snapshot:
    """A server document labelled with the generation it was built at."""

    generation: int
    document: Mapping[str, Any]


@dataclasses.dataclass(frozen=True, slots=True)
class TakeSnapshot:
    """Effect: (bump the generation, then) build the current document. Value: Snapshot."""

    bump: bool


@dataclasses.dataclass(frozen=True, slots=True)
class WriteDocument:
    """Effect: publish ``document``. Value: PublishResult."""

    document: Mapping[str, Any]


@dataclasses.dataclass(frozen=True, slots=True)
class ReadGeneration:
    """Effect: the server's current generation in the database. Value: int."""


@dataclasses.dataclass(frozen=True, slots=True)
class ReadServedGeneration:
    """Effect: the generation of the document the agent is served (0: none). Value: int."""


Effect = TakeSnapshot | WriteDocument | ReadGeneration | ReadServedGeneration


@dataclasses.dataclass(frozen=True, slots=True)
class RunEffect:
    """Command: run ``effect`` off the actor thread and answer with ``effect_done(token)``."""

    token: int
    effect: Effect


@dataclasses.dataclass(frozen=True, slots=True)
class StartTimer:
    """Command: call ``timer_fired(token)`` after ``delay`` seconds."""

    token: int
    delay: float


@dataclasses.dataclass(frozen=True, slots=True)
class Emit:
    """Command: hand ``report`` to whoever watches this server."""

    report: DeliveryReport


Command = RunEffect | StartTimer | Emit


@dataclasses.dataclass(frozen=True, slots=True)
class _Wait:
    seconds: float


_Step = Effect | _Wait
_Flow = Generator[_Step, Any, Any]


class MetadataWriter:
    """The delivery state machine of one server (not thread-safe: one actor drives it)."""

    def __init__(
        self,
        server_id: str,
        policy: DeliveryPolicy | None = None,
        *,
        clock: Callable[[], float],
        rng: random.Random | None = None,
    ) -> None:
        self.server_id = server_id
        self.policy = policy or DeliveryPolicy()
        self._clock = clock
        self._rng = rng or random.Random()
        self._flow: _Flow | None = None
        self._token = 0
        self._on_timer = False
        self._dirty = False
        self._reported = False
        self._target = 0
        self._outbox: list[Command] = []
        self._retry_state = tenacity.RetryCallState(tenacity.Retrying(), None, (), {})
        #: Object writes since the writer last went idle, and over its lifetime.
        self.writes = 0
        self.total_writes = 0

    @property
    def idle(self) -> bool:
        """True when nothing is in flight: the last change is delivered."""
        return self._flow is None

    def changed(self) -> list[Command]:
        """A change to the server's deployments was committed."""
        if self._flow is not None:
            self._dirty = True
            return []
        self._flow = self._deliver()
        return self._advance(None)

    def effect_done(self, token: int, outcome: Outcome) -> list[Command]:
        """The effect started with ``token`` finished; stale tokens are ignored."""
        return self._advance(outcome) if self._awaits(token, timer=False) else []

    def timer_fired(self, token: int) -> list[Command]:
        """The timer started with ``token`` elapsed; stale tokens are ignored."""
        return self._advance(None) if self._awaits(token, timer=True) else []

    def _awaits(self, token: int, *, timer: bool) -> bool:
        return self._flow is not None and token == self._token and self._on_timer == timer

    def _advance(self, value: Outcome | None) -> list[Command]:
        assert self._flow is not None
        try:
            step = self._flow.send(value)
        except StopIteration:
            self._flow = None
            step = None
        commands, self._outbox = self._outbox, []
        if step is None:
            return commands
        self._token += 1
        self._on_timer = isinstance(step, _Wait)
        if isinstance(step, _Wait):
            return [*commands, StartTimer(self._token, step.seconds)]
        return [*commands, RunEffect(self._token, step)]

    def _deliver(self) -> _Flow:
        started = self._clock()
        self.writes = 0
        snapshot: Snapshot | None = None
        attempt = 0
        while True:
            if snapshot is None or self._dirty:
                snapshot = yield from self._bumped_snapshot()
            yield from self._io(WriteDocument(snapshot.document))
            self.writes += 1
            self.total_writes += 1
            current: int = yield from self._io(ReadGeneration())
            served: int = yield from self._io(ReadServedGeneration())
            self._target = max(self._target, current)
            if self._dirty:
                continue
            if served >= current:
                report = MetadataDelivered(self.server_id, current, self.writes, self._reported)
                self._outbox.append(Emit(report))
                self._reported = False
                return
            if current != snapshot.generation:
                snapshot = yield from self._io(TakeSnapshot(bump=False))
            attempt += 1
            self._check_deadline(started, served, current)
            yield _Wait(self._backoff(attempt, self.policy.max_backoff))

    def _bumped_snapshot(self) -> Generator[_Step, Any, Snapshot]:
        """Bump and snapshot; again (a few times) while more changes arrive meanwhile."""
        snapshot: Snapshot | None = None
        for _ in range(1 + self.policy.coalesce_rounds):
            self._dirty = False
            snapshot = yield from self._io(TakeSnapshot(bump=True))
            self._target = max(self._target, snapshot.generation)
            if not self._dirty:
                break
        assert snapshot is not None
        return snapshot

    def _io(self, effect: Effect) -> Generator[_Step, Any, Any]:
        """Run ``effect`` until it succeeds, backing off between failures."""
        failures = 0
        while True:
            outcome: Outcome = yield effect
            if outcome.failure is None:
                return outcome.value
            failures += 1
            exhausted = failures >= self.policy.max_attempts
            if not self._reported and (exhausted or not outcome.failure.retryable):
                self._report_failure(outcome.failure, failures)
            cap = self.policy.recovery_interval if self._reported else self.policy.failure_backoff
            yield _Wait(self._backoff(failures, cap))

    def _report_failure(self, failure: Failure, attempts: int) -> None:
        message = (
            f"metadata delivery to server {self.server_id} failed {attempts} time(s) "
            f"in a row, still retrying: {failure.detail}"
        )
        wrapped = Failure(failure.type_name, message, failure.retryable)
        self._outbox.append(Emit(MetadataDeliveryFailed(self.server_id, self._target, wrapped)))
        self._reported = True

    def _check_deadline(self, started: float, served: int, current: int) -> None:
        elapsed = self._clock() - started
        if self._reported or elapsed <= self.policy.stuck_after:
            return
        stuck = DeliveryStuck(
            f"metadata delivery to server {self.server_id} is stuck: the agent is served "
            f"generation {served}, older than the latest {current}, after {elapsed:.1f} s "
            "(a storage proxy's clock may be far ahead); still retrying"
        )
        self._outbox.append(
            Emit(MetadataDeliveryFailed(self.server_id, current, Failure.from_exception(stuck)))
        )
        self._reported = True

    def _backoff(self, attempt: int, cap: float) -> float:
        """Jittered exponential backoff: tenacity's curve up to ``cap``, half to all of it."""
        self._retry_state.attempt_number = attempt
        ceiling = tenacity.wait_exponential(multiplier=self.policy.initial_backoff, max=cap)(
            self._retry_state
        )
        return self._rng.uniform(ceiling / 2, ceiling)
