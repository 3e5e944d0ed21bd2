"""Cost per resource of the engine's write path, through the Store and in raw SQL (DBAPI).

One resource create writes: insert the version; lock it with its IN_PROGRESS event; complete
and unlock it with its COMPLETE event and its join arrival: three transactions, as the engine
commits them (a state change, its event and the node's join record commit together). The same
statements are then run through the bare driver (sqlite3, psycopg, PyMySQL). Prints the median
over the resources of one run for every reachable backend.

    python bench/store_bench.py [--resources N]
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy.engine import make_url

from tests import dbservers
from thermik.conf.settings import DatabaseSettings
from thermik.persistence import migration
from thermik.persistence.database import Database
from thermik.persistence.factory import open_store
from thermik.persistence.resource_values import (
    JoinArrival,
    NewEvent,
    NewResource,
    ResourceChanges,
)
from thermik.persistence.store import Store
from thermik.persistence.values import NewStack

ENGINE = str(uuid.uuid4())
IN_PROGRESS = ResourceChanges(action="CREATE", status="IN_PROGRESS", status_reason="started")
DONE = ResourceChanges(status="COMPLETE", status_reason="done", physical_resource_id="vm")
PAYLOAD = {"id": 1, "name": "server", "reference_id": "vm", "attrs": {"first_address": "10.0.0.5"}}

INSERT_RESOURCE = (
    "INSERT INTO resource (uuid, stack_id, root_stack_id, name, resource_type, "
    "physical_resource_id, action, status, status_reason, requires, replaces, replaced_by, "
    "current_template_id, engine_id, atomic_key, rsrc_metadata, metadata_generation, created_at, "
    "updated_at) VALUES (?, ?, ?, ?, ?, NULL, 'INIT', 'COMPLETE', '', '[]', NULL, NULL, ?, "
    "NULL, 0, '{}', 0, ?, NULL)"
)
LOCK = (
    "UPDATE resource SET action = ?, status = ?, status_reason = ?, engine_id = ?, "
    "atomic_key = ?, updated_at = ? WHERE id = ? AND atomic_key = ? AND engine_id IS NULL"
)
UNLOCK = (
    "UPDATE resource SET status = ?, status_reason = ?, physical_resource_id = ?, "
    "engine_id = NULL, atomic_key = ?, updated_at = ? WHERE id = ? AND atomic_key = ? "
    "AND engine_id = ?"
)
INSERT_EVENT = (
    "INSERT INTO event (uuid, stack_id, resource_name, resource_action, resource_status, "
    "resource_status_reason, resource_type, physical_resource_id, resource_properties, "
    "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)"
)
INSERT_ARRIVAL = (
    "INSERT INTO join_arrival (stack_id, traversal_id, node, sender, payload, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)


def store_sequence(store: Store, stack_id: str, template_id: int, i: int) -> None:
    """The Store calls of one resource create."""
    resource = store.create_resource(
        NewResource(stack_id, stack_id, f"r{i}", "OS::Nova::Server", template_id)
    )
    started = NewEvent(stack_id, f"r{i}", "CREATE", "IN_PROGRESS", "started", "T")
    key = store.lock_resource(resource.id, ENGINE, resource.atomic_key, IN_PROGRESS, event=started)
    done = NewEvent(stack_id, f"r{i}", "CREATE", "COMPLETE", "done", "T", "vm")
    arrival = JoinArrival("trav", f"{resource.id}:update", "x", PAYLOAD)
    store.unlock_resource(resource.id, ENGINE, key, DONE, event=done, arrival=arrival)


class Raw:
    """The same statements through the bare driver, one transaction each."""

    def __init__(self, backend: str, url: str) -> None:
        parsed = make_url(url)
        self.backend = backend
        if backend == "sqlite":
            import sqlite3

            self.conn: Any = sqlite3.connect(parsed.database or "", isolation_level=None)
            self.conn.execute("PRAGMA synchronous = NORMAL")
            self.conn.execute("PRAGMA foreign_keys = ON")
        elif backend == "postgresql":
            import psycopg

            self.conn = psycopg.connect(
                host=parsed.host, port=parsed.port, user=parsed.username, dbname=parsed.database
            )
        else:
            import pymysql

            self.conn = pymysql.connect(
                host=parsed.host or "",
                port=parsed.port or 3306,
                user=parsed.username or "",
                password=parsed.password or "",
                database=parsed.database,
                charset="utf8mb4",
            )

    def now(self) -> Any:
        now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
        return now.isoformat(" ") if self.backend == "sqlite" else now

    def run(self, statements: list[tuple[str, tuple[Any, ...]]]) -> Any:
        """Run ``statements`` in one transaction; the id the last one generated, if any."""
        cursor = self.conn.cursor()
        if self.backend == "sqlite":
            cursor.execute("BEGIN IMMEDIATE")
        returning = False
        for text, params in statements:
            sql = text if self.backend == "sqlite" else text.replace("?", "%s")
            returning = self.backend == "postgresql" and sql.startswith("INSERT INTO resource")
            cursor.execute(sql + " RETURNING id" if returning else sql, params)
        new_id = cursor.fetchone()[0] if returning else getattr(cursor, "lastrowid", None)
        if self.backend == "sqlite":
            cursor.execute("COMMIT")
        else:
            self.conn.commit()
        return new_id

    def sequence(self, stack_id: str, template_id: int, i: int) -> None:
        name = f"raw{i}"
        rid = self.run(
            [
                (
                    INSERT_RESOURCE,
                    (
                        str(uuid.uuid4()),
                        stack_id,
                        stack_id,
                        name,
                        "OS::Nova::Server",
                        template_id,
                        self.now(),
                    ),
                )
            ]
        )
        self.run(
            [
                (LOCK, ("CREATE", "IN_PROGRESS", "started", ENGINE, 1, self.now(), rid, 0)),
                (
                    INSERT_EVENT,
                    (
                        str(uuid.uuid4()),
                        stack_id,
                        name,
                        "CREATE",
                        "IN_PROGRESS",
                        "started",
                        "T",
                        None,
                        self.now(),
                    ),
                ),
            ]
        )
        payload = json.dumps(PAYLOAD, separators=(",", ":"))
        arrival = (stack_id, "trav", f"{rid}:update", "x", payload, self.now())
        self.run(
            [
                (UNLOCK, ("COMPLETE", "done", "vm", 2, self.now(), rid, 1, ENGINE)),
                (
                    INSERT_EVENT,
                    (
                        str(uuid.uuid4()),
                        stack_id,
                        name,
                        "CREATE",
                        "COMPLETE",
                        "done",
                        "T",
                        "vm",
                        self.now(),
                    ),
                ),
                (INSERT_ARRIVAL, arrival),
            ]
        )


def timed(step: Callable[[int], None], indices: range) -> list[float]:
    samples = []
    for i in indices:
        start = time.perf_counter()
        step(i)
        samples.append(time.perf_counter() - start)
    return samples


def measure(backend: str, url: str, count: int) -> tuple[float, float]:
    """Median seconds per resource through the Store and through raw DBAPI."""
    db = Database(DatabaseSettings(url))
    migration.upgrade(db)
    db.dispose()
    store = open_store(DatabaseSettings(url), None)
    template_id = store.store_raw_template({"heat_template_version": "2021-04-16"}, {}, {})
    stack = store.create_stack(NewStack("bench", "t", template_id))
    raw = Raw(backend, url)
    via_store: list[float] = []
    via_raw: list[float] = []
    timed(lambda i: store_sequence(store, stack.id, template_id, i), range(-20, 0))
    timed(lambda i: raw.sequence(stack.id, template_id, i), range(-20, 0))
    # Interleave so that a noisy neighbour on the machine (a fsync storm, a busy core) hits
    # both sides alike.
    for i in range(count):
        via_store += timed(
            lambda i: store_sequence(store, stack.id, template_id, i), range(i, i + 1)
        )
        via_raw += timed(lambda i: raw.sequence(stack.id, template_id, i), range(i, i + 1))
    raw.conn.close()
    store.close()
    return statistics.median(via_store), statistics.median(via_raw)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resources", type=int, default=500, help="resources per backend")
    args = parser.parse_args()
    print(f"{'backend':<12}{'store ms/resource':>20}{'raw ms/resource':>18}{'ratio':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for backend in dbservers.BACKENDS:
            reason = dbservers.unavailable(backend)
            if reason is not None:
                print(f"{backend:<12}skipped: {reason}")
                continue
            with dbservers.scratch_database(backend, Path(tmp)) as url:
                store_s, raw_s = measure(backend, url, args.resources)
            print(
                f"{backend:<12}{store_s * 1000:>20.3f}{raw_s * 1000:>18.3f}{store_s / raw_s:>8.1f}"
            )
    print(
        "(median of one run; per resource: insert version | lock + event | "
        "unlock + event + join arrival, three transactions)"
    )


if __name__ == "__main__":
    main()
