"""Bounding the memory of a test that would exhaust the machine on a regression.

The machine is shared: a template bomb that escapes its budget must fail the test with a
``MemoryError``, not grow until the kernel kills whatever runs beside it.
"""

from __future__ import annotations

import contextlib
import resource
from collections.abc import Iterator
from pathlib import Path

MIB = 1 << 20


def _status_kib(field: str, pid: str = "self") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise LookupError(field)


def peak_rss(pid: int | str = "self") -> int:
    """The highest resident set size of process ``pid`` so far, in bytes (``VmHWM``)."""
    return _status_kib("VmHWM", str(pid)) * 1024


@contextlib.contextmanager
def address_space_capped(headroom: int = 1024 * MIB) -> Iterator[None]:
    """Limit this process to the address space it maps now plus ``headroom`` bytes, then
    lift the limit again."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = _status_kib("VmSize") * 1024 + headroom
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
