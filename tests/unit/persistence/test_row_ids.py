"""Row UUIDs: time-ordered (version 7) UUIDs, unique, and a forked child never repeats its
parent's."""

from __future__ import annotations

import os
import time
import uuid

from thermik.persistence.row_ids import row_uuid


def test_ids_are_version_7_uuids_and_unique() -> None:
    ids = [row_uuid() for _ in range(10_000)]
    assert len(set(ids)) == len(ids)
    for text in (ids[0], ids[-1]):
        parsed = uuid.UUID(text)
        assert (parsed.version, parsed.variant, str(parsed)) == (7, uuid.RFC_4122, text)


def test_ids_carry_the_millisecond_they_were_made_in_and_grow_with_it() -> None:
    before = time.time_ns() // 1_000_000
    first = row_uuid()
    time.sleep(0.002)
    second = row_uuid()
    after = time.time_ns() // 1_000_000
    assert before <= uuid.UUID(first).int >> 80 <= uuid.UUID(second).int >> 80 <= after
    # Text order is time order: a unique index receives them at its end.
    assert first < second


def test_a_forked_child_draws_other_ids_than_its_parent() -> None:
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        os.write(write, row_uuid().encode())
        os._exit(0)
    os.close(write)
    ours = row_uuid()
    theirs = os.read(read, 64).decode()
    os.close(read)
    os.waitpid(child, 0)
    assert uuid.UUID(theirs).version == 7
    assert theirs[14:] != ours[14:]
