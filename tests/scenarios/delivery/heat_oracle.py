"""Heat's metadata push (commit 46132999c0, the double compare-and-swap) as a test oracle.

Each deployment's engine worker, after inserting its row, runs:

1. read the server row (its ``atomic_key`` k) and the deployment list;
2. compare-and-swap the row's metadata, k -> k+1 (a lost race restarts from 1);
3. PUT the whole document synchronously; any 2xx counts as success (202 included);
4. compare-and-swap k+1 -> k+2, changing nothing (a lost race restarts from 1);

with up to 11 attempts and ``wait_random_exponential(multiplier=0.5, max=60)`` between them,
scaled ten times down as in the measurements. It runs in the same simulated world as Thermik's
writer, so the comparison is like for like.
"""

from __future__ import annotations

import contextlib
import dataclasses
import random

from thermik.delivery.document import with_generation
from thermik.delivery.race import SERVER, RaceConfig, RaceWorld, RoundResult
from thermik.delivery.simulation import Delay, Process
from thermik.errors import DeliveryError

ATTEMPTS = 11


@dataclasses.dataclass(slots=True)
class ServerRow:
    """The server resource row: its atomic key and the latest published generation."""

    atomic_key: int = 0
    published: int = 0


def push(world: RaceWorld, row: ServerRow, rng: random.Random) -> Process[bool]:
    """One worker's push; False when it gave up after 11 lost races."""
    for attempt in range(1, ATTEMPTS + 1):
        yield world.db_delay()
        key = row.atomic_key
        document = world.deployments.metadata_document(SERVER)
        yield world.db_delay()
        if row.atomic_key == key:
            row.atomic_key = key + 1
            row.published = max(row.published, key + 1)
            # Heat logs "Failed to deliver deployment data" and carries on.
            with contextlib.suppress(DeliveryError):
                yield from world.backend.publish_process(
                    world.endpoint, with_generation(document, key + 1)
                )
            yield world.db_delay()
            if row.atomic_key == key + 1:
                row.atomic_key = key + 2
                return True
        yield Delay(rng.uniform(0, min(6.0, 0.05 * 2 ** (attempt - 1))))
    return False


def run_heat_round(config: RaceConfig, seed: int) -> RoundResult:
    """Play one round with Heat's algorithm, one push per deployment."""
    world = RaceWorld(config, seed)
    row = ServerRow()
    rng = random.Random(seed)
    writes_before = world.cluster.counters.puts

    def committed(index: int) -> None:
        world.sim.spawn(push(world, row, rng), lambda ok: None)

    world.schedule_arrivals(committed)
    world.sim.run(until=world.start + config.horizon)
    return RoundResult(
        writes=world.cluster.counters.puts - writes_before,
        dropped_writes=world.cluster.counters.puts_dropped,
        missing=world.missing(),
        stale=world.stale(row.published),
        full_at=world.full_at,
        confirmed_at=None,
        reports=(),
    )
