"""Identifiers of the rows written on every resource action: events and resource versions.

Each action writes two events and creating a stack a version per resource, each with a UUID.
``uuid.uuid4`` asks the kernel for 16 random bytes each time, and CPython lets go of its global
lock around that system call: with the engine's threads waiting for the lock, every id then
cost a hand-off of the lock and a wait to get it back. These ids only need to be unique, not
unpredictable (they are not secrets, and the rows' keys are the database's own), so they come
from a generator seeded once from the operating system, and seeded again in a forked child so
that parent and child never draw the same sequence.
"""

from __future__ import annotations

import os
import random
import uuid

_source = random.Random(int.from_bytes(os.urandom(32), "big"))


def _reseed() -> None:
    _source.seed(int.from_bytes(os.urandom(32), "big"))


os.register_at_fork(after_in_child=_reseed)


def row_uuid() -> str:
    """A random (version 4) UUID, as text."""
    # getrandbits is one C call under the global lock: safe from any thread.
    return str(uuid.UUID(int=_source.getrandbits(128), version=4))
