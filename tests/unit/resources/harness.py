"""A small, real ResourceContext for driving plugins in tests: a hand-driven clock, an
in-memory resource data store and a seeded random source."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Mapping

from thermik.resources import CheckResult, PollAfter, Progress, StackIdentity


class ManualClock:
    """A clock that moves only when told to (``sleep`` advances it)."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self.time = start
        self.slept: list[float] = []

    def now(self) -> float:
        return self.time

    def advance(self, seconds: float) -> None:
        self.time += seconds

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.time += seconds


class MemoryData:
    """Resource data kept in a dict, remembering which keys are redacted."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self.redacted: set[str] = set()

    def get(self, key: str) -> str | None:
        return self.values.get(key)

    def set(self, key: str, value: str, *, redact: bool = False) -> None:
        self.values[key] = value
        if redact:
            self.redacted.add(key)
        else:
            self.redacted.discard(key)

    def delete(self, key: str) -> None:
        self.values.pop(key, None)
        self.redacted.discard(key)

    def as_dict(self) -> Mapping[str, str]:
        return dict(self.values)


@dataclasses.dataclass
class Context:
    """One resource's view, as the engine would give it."""

    resource_name: str = "r"
    resource_type: str = "OS::Heat::TestResource"
    stack: StackIdentity = dataclasses.field(
        default_factory=lambda: StackIdentity("stack-id", "teststack", "tenant")
    )
    physical_id: str | None = None
    version_id: int = 1
    data: MemoryData = dataclasses.field(default_factory=MemoryData)
    clock: ManualClock = dataclasses.field(default_factory=ManualClock)
    random: random.Random = dataclasses.field(default_factory=lambda: random.Random(42))
    #: Other resources of the stack, by reference id: what ``peer_data`` reads.
    peers: dict[str, MemoryData] = dataclasses.field(default_factory=dict)

    def set_physical_id(self, physical_id: str | None) -> None:
        self.physical_id = physical_id

    def peer_data(self, reference_id: str) -> Mapping[str, str] | None:
        peer = self.peers.get(reference_id)
        return None if peer is None else peer.as_dict()


def drive(
    check: Callable[[Progress | None], CheckResult],
    progress: Progress | None,
    clock: ManualClock,
    *,
    limit: int = 100,
) -> tuple[int, float]:
    """Poll ``check`` like the actor shell does, advancing the clock by each hint (1 s after a
    plain False). Returns how many polls it took and how much time passed."""
    started = clock.now()
    for polls in range(1, limit + 1):
        result = check(progress)
        if result is True:
            return polls, clock.now() - started
        clock.advance(result.seconds if isinstance(result, PollAfter) else 1.0)
    raise AssertionError(f"not complete after {limit} polls")
