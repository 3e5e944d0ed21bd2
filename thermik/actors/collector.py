"""The pace of CPython's cyclic garbage collector in a process that runs an engine.

A traversal allocates a few dozen container objects per resource and operation (messages,
rows, plugin contexts, actors), nearly all freed by reference counting soon after. With the
default first threshold (a young collection every 700 net allocations) the collector runs
every few resources and each run also visits what the traversal keeps alive meanwhile (its
graph, plans and definitions): about 4% of the engine's instructions per resource
(callgrind, ``bench/convergence_bench.py`` wide 1,000). A higher first threshold makes young
collections rarer; the older generations keep their default ratios, so the cycles actors
leave (an actor and its reference) are still collected as before, only in larger sweeps.
"""

from __future__ import annotations

import gc

#: Net allocations between young collections in an engine process (CPython's default: 700).
YOUNG_THRESHOLD = 10_000


def pace_collector() -> None:
    """Raise the collector's first threshold to :data:`YOUNG_THRESHOLD` (never lower it)."""
    young, middle, old = gc.get_threshold()
    if 0 < young < YOUNG_THRESHOLD:
        gc.set_threshold(YOUNG_THRESHOLD, middle, old)
