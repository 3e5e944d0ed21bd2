"""Time the actor runtime converging stacks of ``OS::Heat::TestResource`` end to end.

For each shape and size: create a stack, update it (every resource changed in place), delete
it, through :class:`~thermik.actors.runtime.EngineRuntime` on a real store (SQLite file by
default, the embedded default; ``--db postgresql`` uses the local server). Shapes:

* ``wide``: N independent resources;
* ``chain``: each resource requires the previous one;
* ``layers``: 10 layers, each resource requiring every resource of the previous layer.

Every (shape, size) runs in its own process, so the peak RSS printed is that configuration's
(``resource.getrusage``). Each time comes with the CPU time the process spent meanwhile (all
threads): on a machine shared with other work, the wall time also holds the waits for a core.
Each run starts a fresh database and runtime, then warms it up as ``heat_peer_bench.py`` warms
Heat up (a stack of two created and deleted, untimed; on a server database a stack as wide as
twice the resources the engine runs at once, so that the pool opens its connections): the
first statements of a new connection pool compile SQL, load plugins and open connections
once, which a running engine has long done.
Times are medians over ``--runs`` runs for sizes up to 1,000 (one run
above). The store holds a key, as the embedded default always does (it generates one), so every
stored document is sealed; ``--key none`` runs as a service without ``auth_encryption_key``
(nothing sealed), which gives the cost of the encryption by difference. ``--hidden`` feeds a
hidden parameter into every resource's value. Targets: 0.5 ms per resource for every shape and
operation, 5,000 wide created in 2.5 s, peak RSS 300 MiB.

    .venv/bin/python bench/convergence_bench.py [--sizes 100,500,1000,5000]
        [--shapes wide,chain,layers] [--runs 3] [--db sqlite|postgresql]
        [--cpu-affinity one|any|CPUS] [--key generated|none] [--hidden]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sqlalchemy

from tests import dbservers
from thermik.actors.runtime import ConvergeRequest, EngineRuntime
from thermik.conf.settings import DatabaseSettings, EngineSettings
from thermik.engine.states import Action
from thermik.persistence import migration
from thermik.persistence.crypto import SecretBox
from thermik.persistence.database import Database
from thermik.persistence.factory import open_store
from thermik.persistence.store import Store
from thermik.persistence.values import NewStack
from thermik.resources.registry import Registry

LAYERS = 10
OPERATIONS = ("create", "update", "delete")
#: The hidden parameter of ``--hidden`` and its value.
SECRET = "secret"
SECRET_VALUE = "s3cr3t-b3nch-value"


def template(shape: str, size: int, value: str, *, hidden: bool = False) -> dict[str, Any]:
    """A HOT template of ``size`` TestResources in ``shape``; ``hidden``: each resource's value
    derives from a hidden parameter."""
    resources: dict[str, Any] = {}
    value_of: Any = value
    if hidden:
        value_of = {"list_join": ["-", [value, {"get_param": SECRET}]]}
    if shape == "wide":
        for i in range(size):
            resources[f"r{i}"] = _resource(value_of)
    elif shape == "chain":
        for i in range(size):
            resources[f"r{i}"] = _resource(value_of, [f"r{i - 1}"] if i else [])
    else:
        width = max(1, size // LAYERS)
        previous: list[str] = []
        for layer in range(LAYERS):
            names = [f"l{layer}_{i}" for i in range(width)]
            for name in names:
                resources[name] = _resource(value_of, previous)
            previous = names
    document: dict[str, Any] = {"heat_template_version": "2021-04-16", "resources": resources}
    if hidden:
        document["parameters"] = {SECRET: {"type": "string", "hidden": True}}
    return document


def _resource(value: Any, depends_on: list[str] | None = None) -> dict[str, Any]:
    found: dict[str, Any] = {"type": "OS::Heat::TestResource", "properties": {"value": value}}
    if depends_on:
        found["depends_on"] = depends_on
    return found


@contextlib.contextmanager
def database(backend: str) -> Iterator[str]:
    """A fresh migrated database; its URL."""
    with (
        tempfile.TemporaryDirectory() as directory,
        dbservers.scratch_database(backend, Path(directory)) as url,
    ):
        db = Database(DatabaseSettings(url))
        migration.upgrade(db)
        db.dispose()
        yield url


def converge_once(
    store: Store, runtime: EngineRuntime, stack_id: str, operation: Action, template_id: int
) -> tuple[float, float]:
    """Seconds from the request to the end of the traversal, and CPU seconds the process
    spent meanwhile (all threads; on a shared machine the wall time also holds the waits
    for a core). A create stores the stack as the service does (with its traversal started,
    ``EngineRuntime.create``), in the time measured."""
    request = ConvergeRequest(stack_id, operation, template_id=template_id)
    started, cpu = time.perf_counter(), time.process_time()
    if operation is Action.CREATE:
        runtime.create(NewStack(f"bench-{stack_id[:8]}", "bench", template_id), request)
    else:
        runtime.converge(request)
    state = runtime.wait(stack_id, 3600)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    if not str(state).endswith("_COMPLETE"):
        reason = store.get_stack(stack_id, show_deleted=True).status_reason
        raise SystemExit(f"{operation.value} ended {state}: {reason}")
    return elapsed, cpu


#: Resources of the warm-up stack on a server database: twice as many as the engine runs at
#: once, so that the connection pool has opened the connections a running engine keeps
#: (opening one costs 2 ms of CPU with psycopg, 35 ms with PyMySQL).
SERVER_WARM_UP = 2 * EngineSettings().max_concurrent_resources


def warm_up(store: Store, runtime: EngineRuntime, backend: str) -> None:
    """Create and delete a stack of two (untimed), as the Heat peer benchmark does; on a
    server database a stack of :data:`SERVER_WARM_UP`."""
    size = 2 if backend == "sqlite" else SERVER_WARM_UP
    template_id = store.store_raw_template(template("wide", size, "warm"), {}, {})
    stack_id = str(uuid.uuid4())
    for action in (Action.CREATE, Action.DELETE):
        converge_once(store, runtime, stack_id, action, template_id)


@dataclasses.dataclass(frozen=True)
class Variant:
    """What the store and the stack hold: a key (``None``: none configured), a hidden
    parameter feeding every resource."""

    key: str | None
    hidden: bool = False

    def store_template(self, store: Store, shape: str, size: int, value: str) -> int:
        """Store the bench's template for ``value``."""
        document = template(shape, size, value, hidden=self.hidden)
        if not self.hidden:
            return store.store_raw_template(document, {}, {})
        environment = {"parameters": {SECRET: SECRET_VALUE}}
        return store.store_raw_template(document, environment, {}, hidden_parameters=[SECRET])


def one_configuration(
    shape: str, size: int, runs: int, backend: str, affinity: str, variant: Variant
) -> dict[str, Any]:
    """Time create, update and delete ``runs`` times; medians in seconds (wall and CPU)."""
    registry = Registry.from_entry_points()
    times: dict[str, list[float]] = {op: [] for op in OPERATIONS}
    cpu: dict[str, list[float]] = {op: [] for op in OPERATIONS}
    for _ in range(runs):
        with database(backend) as url:
            store = open_store(DatabaseSettings(url), variant.key)
            settings = EngineSettings(cpu_affinity=affinity)
            runtime = EngineRuntime.start(store=store, registry=registry, settings=settings)
            try:
                warm_up(store, runtime, backend)
                first = variant.store_template(store, shape, size, "one")
                second = variant.store_template(store, shape, size, "two")
                stack_id = str(uuid.uuid4())
                for op, action, template_id in (
                    ("create", Action.CREATE, first),
                    ("update", Action.UPDATE, second),
                    ("delete", Action.DELETE, second),
                ):
                    wall, used = converge_once(store, runtime, stack_id, action, template_id)
                    times[op].append(wall)
                    cpu[op].append(used)
            finally:
                runtime.stop()
                store.close()
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "seconds": {op: statistics.median(values) for op, values in times.items()},
        "cpu": {op: statistics.median(values) for op, values in cpu.items()},
        "peak_mib": peak_kib / 1024,
    }


def commit_latency(backend: str, count: int = 200) -> float:
    """Median seconds of a one-row INSERT and its COMMIT on a fresh connection of ``backend``'s
    server: what one resource of a chain waits for at least (its record's commit)."""
    with database(backend) as url:
        engine = sqlalchemy.create_engine(url, poolclass=sqlalchemy.NullPool)
        try:
            with engine.connect() as conn:
                conn.exec_driver_sql("CREATE TABLE commit_probe (id INTEGER)")
                conn.commit()
                times = []
                for index in range(count):
                    started = time.perf_counter()
                    conn.exec_driver_sql(f"INSERT INTO commit_probe VALUES ({index})")
                    conn.commit()
                    times.append(time.perf_counter() - started)
        finally:
            engine.dispose()
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,500,1000,5000")
    parser.add_argument("--shapes", default="wide,chain,layers")
    parser.add_argument("--runs", type=int, default=3, help="runs for sizes up to 1,000")
    parser.add_argument("--db", default="sqlite", choices=dbservers.BACKENDS)
    parser.add_argument(
        "--cpu-affinity",
        default="one",
        help="the engine's [engine] cpu_affinity (default: one, the engine's default)",
    )
    parser.add_argument(
        "--key",
        default="generated",
        choices=("generated", "none"),
        help="generated (default): a key, as the embedded default has; none: no key",
    )
    parser.add_argument(
        "--hidden", action="store_true", help="feed a hidden parameter into every resource"
    )
    parser.add_argument("--one", nargs=2, metavar=("SHAPE", "SIZE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        shape, size = args.one[0], int(args.one[1])
        runs = args.runs if size <= 1000 else 1
        key = SecretBox.generate_key() if args.key == "generated" else None
        variant = Variant(key, args.hidden)
        result = one_configuration(shape, size, runs, args.db, args.cpu_affinity, variant)
        print(json.dumps(result))
        return
    reason = dbservers.unavailable(args.db)
    if reason:
        raise SystemExit(reason)
    targets = "<= 0.5 ms/resource, 5,000 wide created in <= 2.5 s, peak RSS <= 300 MiB"
    print(
        f"database {args.db}; engine cpu_affinity {args.cpu_affinity}; key {args.key}; "
        f"hidden parameter {'in every resource' if args.hidden else 'none'}; targets: {targets}"
    )
    if args.db != "sqlite":
        print(f"a commit (one-row INSERT, COMMIT) takes {commit_latency(args.db) * 1000:.2f} ms")
    print(
        f"{'shape':8} {'N':>6} | " + " | ".join(f"{op:>26}" for op in OPERATIONS) + " | peak RSS"
    )
    for shape in args.shapes.split(","):
        for size in (int(s) for s in args.sizes.split(",")):
            command = [
                sys.executable,
                __file__,
                "--one",
                shape,
                str(size),
                "--runs",
                str(args.runs),
                "--db",
                args.db,
                "--cpu-affinity",
                args.cpu_affinity,
                "--key",
                args.key,
                *(["--hidden"] if args.hidden else []),
            ]
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode:
                print(
                    f"{shape:8} {size:>6} | failed: {done.stderr.strip() or done.stdout.strip()}"
                )
                continue
            result = json.loads(done.stdout.strip().splitlines()[-1])
            cells = [
                f"{result['seconds'][op]:7.3f} s {result['seconds'][op] / size * 1000:5.3f} ms"
                f" ({result['cpu'][op] / size * 1000:5.3f})"
                for op in OPERATIONS
            ]
            print(
                f"{shape:8} {size:>6} | "
                + " | ".join(cells)
                + f" | {result['peak_mib']:6.1f} MiB",
                flush=True,
            )
    print(
        "(each cell: seconds for the whole traversal, then ms per resource, then in brackets "
        "CPU ms per resource of the whole process; medians of --runs runs up to 1,000 "
        "resources)"
    )


if __name__ == "__main__":
    main()
