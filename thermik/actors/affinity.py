"""Which CPUs the engine's threads run on (``[engine] cpu_affinity``).

Only one thread of a Python process runs Python at a time, and the engine's threads hand that
lock to each other many times per resource (every message between actors, every SQLite call
lets it go). Spread over several CPUs, each hand-off wakes a thread on another CPU, which then
runs with cold caches, and a virtual machine pays for each cross-CPU wake-up: on a two-CPU
virtual machine ``bench/convergence_bench.py`` converges stacks of 5,000 in 5 to 24% less time
and CPU with the engine's threads on one CPU. So by default they share the CPU the engine
started on, which the kernel chose; several engines on one host are better given a CPU each.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Set

from thermik.errors import InvalidInput

LOG = logging.getLogger(__name__)

#: The engine's threads share the CPU the engine starts on.
ONE = "one"
#: The kernel places the engine's threads.
ANY = "any"


def engine_cpus(setting: str) -> frozenset[int] | None:
    """The CPUs ``setting`` names for the engine's threads (``None``: no pinning).

    ``one``, ``any``, or CPU numbers separated by commas (``2`` or ``2,3``). Pinning is
    left out where the system has no CPU affinity.

    Raises:
        InvalidInput: ``setting`` is none of these, or names no CPU this process may use.
    """
    value = setting.strip().lower()
    if value == ANY or not hasattr(os, "sched_getaffinity"):
        return None
    allowed = frozenset(os.sched_getaffinity(0))
    if value == ONE:
        here = _current_cpu()
        return frozenset({here if here in allowed else min(allowed)})
    try:
        named = frozenset(int(part) for part in value.split(","))
    except ValueError:
        raise InvalidInput(
            f"{setting!r} is not 'one', 'any' or a list of CPU numbers",
            path=("engine", "cpu_affinity"),
        ) from None
    usable = named & allowed
    if not usable:
        raise InvalidInput(
            f"none of the CPUs {sorted(named)} is available (this process may use "
            f"{sorted(allowed)})",
            path=("engine", "cpu_affinity"),
        )
    return usable


def pin_this_thread(cpus: Set[int] | None) -> None:
    """Run the calling thread on ``cpus`` from now on (nothing when ``None``)."""
    if cpus is None:
        return
    try:
        os.sched_setaffinity(0, cpus)
    except OSError as error:  # the CPUs left the process's set since (cgroup change)
        LOG.warning("engine thread left unpinned: CPUs %s: %s", sorted(cpus), error)


def _current_cpu() -> int:
    """The CPU the calling thread last ran on (-1 when the system does not tell)."""
    try:
        with open("/proc/thread-self/stat", encoding="ascii") as stat:
            # The command name, in brackets, may hold spaces: count fields after it.
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return -1
    return int(fields[36])
