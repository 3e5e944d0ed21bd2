"""Writes queued behind a write that holds its writer: what the next batch holds is then known,
with no timing assumption (the first write waits on an event inside its work until the others
have queued, one at a time so that they queue in the order given)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from sqlalchemy import Connection, text

from thermik.persistence.database import Database

Work = Callable[[Connection], int]


def insert_value(value: int) -> Work:
    """A write of ``value`` into table ``t``; it returns the value."""

    def work(conn: Connection) -> int:
        conn.exec_driver_sql(f"INSERT INTO t (v) VALUES ({value})")
        return value

    return work


def failing_insert(value: int) -> Work:
    """A write of ``value`` that raises once its INSERT ran."""

    def work(conn: Connection) -> int:
        conn.exec_driver_sql(f"INSERT INTO t (v) VALUES ({value})")
        raise ValueError(f"write {value} refused")

    return work


def stored_values(db: Database) -> list[int]:
    """The values in table ``t``, in order."""
    rows = db.read(lambda conn: conn.execute(text("SELECT v FROM t ORDER BY v")).all())
    return [row.v for row in rows]


def queue_behind_a_held_write(
    db: Database, works: list[Work], waiting: Callable[[], int], *, lazy: bool = False
) -> dict[int, object]:
    """Run ``works`` from threads while a first write holds the writer (``waiting`` counts the
    writes queued behind it); their outcomes, by index."""
    holding, release = threading.Event(), threading.Event()

    def hold(conn: Connection) -> int:
        holding.set()
        release.wait(10)
        return 0

    outcomes: dict[int, object] = {}

    def call(index: int, work: Work) -> None:
        try:
            outcomes[index] = db.write(work, lazy=lazy)
        except Exception as error:  # the outcome under test
            outcomes[index] = error

    holder = threading.Thread(target=call, args=(-1, hold))
    holder.start()
    assert holding.wait(10)
    threads = [threading.Thread(target=call, args=(i, w)) for i, w in enumerate(works)]
    for number, thread in enumerate(threads, 1):
        thread.start()
        deadline = time.monotonic() + 10
        while waiting() < number and time.monotonic() < deadline:
            time.sleep(0.001)
    release.set()
    for thread in [holder, *threads]:
        thread.join(10)
    return outcomes


def check_a_failing_write_leaves_nothing(
    run: Callable[[list[Work]], dict[int, object]], stored: Callable[[], list[int]]
) -> None:
    """Of three writes queued together (``run`` queues them), the failing second one raises
    to its caller alone and leaves nothing; the others commit."""
    outcomes = run([insert_value(1), failing_insert(2), insert_value(3)])
    assert outcomes[0] == 1
    assert isinstance(outcomes[1], ValueError)
    assert str(outcomes[1]) == "write 2 refused"
    assert outcomes[2] == 3
    assert stored() == [1, 3]
