"""Row UUIDs: version-4 UUIDs, unique, and a forked child never repeats its parent's."""

from __future__ import annotations

import os
import uuid

from thermik.persistence.row_ids import row_uuid


def test_ids_are_version_4_uuids_and_unique() -> None:
    ids = [row_uuid() for _ in range(10_000)]
    assert len(set(ids)) == len(ids)
    parsed = uuid.UUID(ids[0])
    assert (parsed.version, parsed.variant, str(parsed)) == (4, uuid.RFC_4122, ids[0])


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
    assert uuid.UUID(theirs).version == 4
    assert theirs != ours
