"""SQLite admits one writer: the store's threads share one writer connection and never contend.

With a busy timeout of zero, any two connections of this process writing at once would fail
with "database is locked" at once; routed through the single writer, none does.
"""

from __future__ import annotations

import threading
from pathlib import Path

from tests.contract.test_faults import migrated_sqlite
from tests.contract.test_store import TEMPLATE
from thermik.persistence.factory import open_store
from thermik.persistence.resource_values import EventQuery, JoinArrival, NewEvent
from thermik.persistence.values import NewStack, StackQuery

THREADS = 16
WRITES = 40


def test_many_threads_write_without_database_is_locked(tmp_path: Path) -> None:
    store = open_store(migrated_sqlite(tmp_path / "t.sqlite", busy_timeout=0), None)
    template_id = store.store_raw_template(TEMPLATE, {}, {})
    stack = store.create_stack(NewStack("web", "t1", template_id))
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def writer(number: int) -> None:
        start.wait()
        try:
            for i in range(WRITES):
                store.append_event(NewEvent(stack.id, f"r{number}", "CREATE", "COMPLETE"))
                store.append_arrival(stack.id, JoinArrival("T", f"n{number}", f"s{i}", i))
                store.list_stacks(StackQuery(tenant="t1"))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(store.list_events(EventQuery(stack.id))) == THREADS * WRITES
    assert len(store.list_traversal_arrivals("T")) == THREADS * WRITES
    store.close()
