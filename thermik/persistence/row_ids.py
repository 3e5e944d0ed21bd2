"""Identifiers of the rows written on every resource action: events and resource versions.

Each action writes two events and creating a stack a version per resource, each with a UUID.
``uuid.uuid4`` asks the kernel for 16 random bytes each time, and CPython lets go of its global
lock around that system call: with the engine's threads waiting for the lock, every id then
cost a hand-off of the lock and a wait to get it back. These ids only need to be unique, not
unpredictable (they are not secrets, and the rows' keys are the database's own), so their
random part comes from a generator seeded once from the operating system, and seeded again in
a forked child so that parent and child never draw the same sequence.

They are time-ordered (RFC 9562 version 7: the millisecond, then 74 random bits). Each id
column has a unique index, and a random UUID lands on a random page of it: every transaction
of a resource action then wrote one more page of the index per event. Ids that grow with time
all land on the index's last page, which the transaction writes anyway.
"""

from __future__ import annotations

import os
import random
import time

_source = random.Random(int.from_bytes(os.urandom(32), "big"))

_VERSION_7 = 0x7 << 76
_RFC_VARIANT = 0b10 << 62
_RAND_B_BITS = 62


def _reseed() -> None:
    _source.seed(int.from_bytes(os.urandom(32), "big"))


os.register_at_fork(after_in_child=_reseed)


def row_uuid() -> str:
    """A time-ordered (version 7) UUID, as text."""
    millis = time.time_ns() // 1_000_000
    # getrandbits is one C call under the global lock: safe from any thread.
    random_bits = _source.getrandbits(74)
    value = (
        (millis & 0xFFFF_FFFF_FFFF) << 80
        | _VERSION_7
        | (random_bits >> _RAND_B_BITS) << 64
        | _RFC_VARIANT
        | random_bits & ((1 << _RAND_B_BITS) - 1)
    )
    text = f"{value:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"
