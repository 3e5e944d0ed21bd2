"""One big stack through Heat's v1 REST API: how long a 5,000-resource stack takes to create and
delete as a user sees it, on the embedded SQLite default and in service mode on PostgreSQL and
MariaDB (and real Heat 27, ``--target heat``, at a size it can take).

* ``sqlite``: the local engine daemon the ``thermik`` CLI starts (``thermik.cmd.local_engine``:
  the engine and the API in one process, SQLite under a scratch state directory), called with
  its token;
* ``postgresql``, ``mysql``: one ``thermik-engine`` and one ``thermik-api`` (``--api-workers``
  pre-forked workers) over RabbitMQ on a fresh database of the local server, started as
  ``bench/scale_bench.py`` starts them (``tests/functional/rpc/cluster.py``);
* ``--target heat``: heat-engine (one worker) and heat-api on the same server and RabbitMQ,
  started as ``scale_bench.py --target heat`` starts them (``bench/scale_heat.py``).

Each deployment first creates and deletes a stack of 20 (untimed: the engine's pool opens its
connections, plugins load). Then per shape (``wide``: independent resources; ``chain``: each
requires the previous one) and run: POST the stack (``OS::Heat::TestResource`` without waits),
GET it every ``--poll`` s until it settles, then DELETE it and GET it until it is gone. It
prints, per database and shape, the medians over ``--runs`` of the seconds from the POST to the
first GET that shows ``CREATE_COMPLETE`` (and the POST's own share: parsing, validating and
storing the template), the seconds to delete, and the engine's CPU seconds meanwhile (the
daemon's: it also serves the API).

    .venv/bin/python bench/big_stack_bench.py [--resources 5000] [--shapes wide,chain]
        [--db sqlite,postgresql,mysql] [--runs 1] [--poll 0.1] [--api-workers 2]
        [--target thermik|heat] [--transport-url rabbit://guest:guest@127.0.0.1:5672/]
        [--json FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scale_bench import load_average
from scale_bench import thermik as thermik_cluster
from scale_heat import HeatCluster
from scale_heat import unavailable as heat_unavailable

from tests import dbservers
from tests.functional.rpc.cluster import cpu_seconds, own_vhost, rabbit_unreachable
from thermik.clients import local_daemon as local
from thermik.cmd import daemon
from thermik.conf.settings import RpcSettings

SHAPES = ("wide", "chain")
WARM_UP = 20
#: How long one stack may take to settle before the run is given up.
SETTLE_TIMEOUT = 1800.0


class Client(Protocol):
    """The REST calls the bench makes, under ``/v1/<tenant>``."""

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """One request; the status and the decoded body."""


class Target(Protocol):
    """A running deployment: its API and its engine's CPU seconds so far."""

    api: Client

    def engine_cpu(self) -> dict[str, float]:
        """Engine -> CPU seconds so far."""


class DaemonClient:
    """The local engine daemon's API, as the ``thermik`` CLI calls it (its token)."""

    def __init__(self, address: local.EngineAddress) -> None:
        self.address = address

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        answer = local.send(
            self.address,
            method,
            f"/v1/local{path}",
            timeout=daemon.CALL_TIMEOUT,
            body=data,
            headers={"Content-Type": "application/json"},
        )
        return answer.status, answer.decoded()


class LocalDaemon:
    """The daemon of a scratch state directory, started as the CLI starts it."""

    def __init__(self, state_dir: Path, resources: int) -> None:
        state_dir.mkdir()
        config = state_dir / "thermik.conf"
        config.write_text(
            f"[DEFAULT]\nstate_dir = {state_dir}\n{resources_limit(resources)}\n", "utf-8"
        )
        self.state_dir = state_dir
        self.address = daemon.ensure(daemon.Launch(state_dir, (str(config),)))
        self.api = DaemonClient(self.address)

    def engine_cpu(self) -> dict[str, float]:
        return {"daemon": cpu_seconds(self.address.pid)}

    def close(self) -> None:
        daemon.stop(self.state_dir)


def resources_limit(resources: int) -> str:
    """The ``[DEFAULT]`` line that lets a stack have ``resources`` (the default is 1,000)."""
    return f"max_resources_per_stack = {max(resources, 1000)}"


def template(shape: str, size: int) -> dict[str, Any]:
    """``size`` test resources without waits, independent (``wide``) or each requiring the
    previous one (``chain``)."""
    resources: dict[str, Any] = {}
    for n in range(size):
        resource: dict[str, Any] = {"type": "OS::Heat::TestResource", "properties": {"value": "v"}}
        if shape == "chain" and n:
            resource["depends_on"] = f"r{n - 1:04d}"
        resources[f"r{n:04d}"] = resource
    return {"heat_template_version": "2018-08-31", "resources": resources}


def settle(api: Client, path: str, poll: float, gone_ok: bool) -> tuple[str, float]:
    """GET ``path`` every ``poll`` s until the stack is no longer IN_PROGRESS (or gone, when
    ``gone_ok``): its status and when it was seen."""
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while time.monotonic() < deadline:
        status, body = api.request("GET", path)
        seen = time.monotonic()
        if status == 404 and gone_ok:
            return "DELETE_COMPLETE", seen
        if status != 200:
            raise RuntimeError(f"GET {path}: {status} {body}")
        state = body["stack"]["stack_status"]
        if not state.endswith("IN_PROGRESS"):
            return state, seen
        time.sleep(poll)
    raise RuntimeError(f"{path} did not settle within {SETTLE_TIMEOUT:g} s")


def one_run(target: Target, name: str, shape: str, size: int, poll: float) -> dict[str, float]:
    """Create then delete one stack: seconds (POST, create, delete) and engine CPU seconds."""
    body = {"stack_name": name, "template": template(shape, size), "timeout_mins": 60}
    cpu_before = sum(target.engine_cpu().values())
    started = time.monotonic()
    status, answer = target.api.request("POST", "/stacks", body)
    posted = time.monotonic()
    if status != 201:
        raise RuntimeError(f"POST /stacks ({shape} {size}): {status} {answer}")
    path = f"/stacks/{name}/{answer['stack']['id']}"
    state, created = settle(target.api, path, poll, gone_ok=False)
    if state != "CREATE_COMPLETE":
        raise RuntimeError(f"{shape} {size}: the stack settled in {state}")
    cpu_created = sum(target.engine_cpu().values())
    delete_started = time.monotonic()
    status, answer = target.api.request("DELETE", path)
    if status not in (202, 204):
        raise RuntimeError(f"DELETE {path}: {status} {answer}")
    state, deleted = settle(target.api, path, poll, gone_ok=True)
    if state != "DELETE_COMPLETE":
        raise RuntimeError(f"{shape} {size}: the delete settled in {state}")
    return {
        "post_s": posted - started,
        "create_s": created - started,
        "create_cpu_s": cpu_created - cpu_before,
        "delete_s": deleted - delete_started,
        "delete_cpu_s": sum(target.engine_cpu().values()) - cpu_created,
    }


@contextlib.contextmanager
def deployment(args: argparse.Namespace, backend: str, scratch: Path) -> Iterator[Target]:
    """The deployment measured for ``backend``, started on a fresh database."""
    if backend == "sqlite":
        local_daemon = LocalDaemon(scratch / "state", args.resources)
        try:
            yield local_daemon
        finally:
            local_daemon.close()
        return
    server = dbservers.SERVER_URLS[backend]
    with (
        own_vhost(args.transport_url) as bus,
        dbservers.scratch_database(backend, scratch, server_url=server) as url,
    ):
        if args.target == "heat":
            with HeatCluster(scratch, 1, args.api_workers).running(url, *bus) as heat:
                yield heat
        else:
            limit = resources_limit(args.resources)
            with thermik_cluster(args, 1, scratch, url, bus, default=limit) as cluster:
                yield cluster


def measure(args: argparse.Namespace, backend: str) -> dict[str, dict[str, float]]:
    """Every shape's median figures on ``backend``."""
    print(f"{backend}: starting (load average {load_average()})", flush=True)
    figures: dict[str, dict[str, float]] = {}
    with (
        tempfile.TemporaryDirectory(prefix="big-stack-bench-") as scratch,
        deployment(args, backend, Path(scratch)) as target,
    ):
        one_run(target, "warm-up", "wide", WARM_UP, args.poll)
        for shape in args.shape_list:
            runs = [
                one_run(target, f"{shape}-{n}", shape, args.resources, args.poll)
                for n in range(args.runs)
            ]
            figures[shape] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            report(backend, shape, args.resources, figures[shape])
    return figures


def report(backend: str, shape: str, size: int, median: dict[str, float]) -> None:
    """One line of figures."""
    per = 1000 / size
    print(
        f"  {backend:<10} {shape:<5} {size}: create {median['create_s']:.2f} s"
        f" ({median['create_s'] * per:.2f} ms per resource; the POST {median['post_s']:.2f} s),"
        f" engine CPU {median['create_cpu_s']:.2f} s; delete {median['delete_s']:.2f} s,"
        f" engine CPU {median['delete_cpu_s']:.2f} s (load average {load_average()})",
        flush=True,
    )


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--resources", type=int, default=5000)
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--db", default=",".join(dbservers.BACKENDS))
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--poll", type=float, default=0.1)
    parser.add_argument("--api-workers", type=int, default=2)
    parser.add_argument("--target", choices=("thermik", "heat"), default="thermik")
    parser.add_argument("--transport-url", default="rabbit://guest:guest@127.0.0.1:5672/")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    args.shape_list = [s for s in args.shapes.split(",") if s]
    args.backends = [b for b in args.db.split(",") if b]
    for shape in args.shape_list:
        if shape not in SHAPES:
            parser.error(f"--shapes: {shape!r} is not one of {', '.join(SHAPES)}")
    for backend in args.backends:
        if backend not in dbservers.BACKENDS:
            parser.error(f"--db: {backend!r} is not one of {', '.join(dbservers.BACKENDS)}")
    if args.target == "heat" and "sqlite" in args.backends:
        parser.error("--target heat: Heat runs on a database server; leave sqlite out of --db")
    if args.resources < 1 or args.runs < 1:
        parser.error("--resources and --runs must be at least 1")
    # What scale_bench's cluster reads from its own arguments.
    args.call_timeout = RpcSettings().call_timeout
    return args


def unavailable(args: argparse.Namespace) -> list[str]:
    """Why the requested deployments cannot run here."""
    reasons: list[str | None] = []
    servers = [b for b in args.backends if b != "sqlite"]
    for backend in servers:
        reasons.append(dbservers.unavailable(backend, dbservers.SERVER_URLS[backend]))
    if servers:
        reasons.append(rabbit_unreachable(args.transport_url))
    if args.target == "heat":
        reasons.append(heat_unavailable())
    return [r for r in reasons if r is not None]


def main(argv: list[str] | None = None, out: Callable[[str], None] = print) -> int:
    args = parse(argv)
    reasons = unavailable(args)
    for reason in reasons:
        print(f"big_stack_bench: {reason}", file=sys.stderr)
    if reasons:
        return 2
    out(
        f"big_stack_bench: {args.target}, {args.resources} OS::Heat::TestResource without waits"
        f" per stack, through Heat's v1 REST API; poll {args.poll:g} s; medians of {args.runs}"
        f" run(s); pid {os.getpid()}"
    )
    results = {backend: measure(args, backend) for backend in args.backends}
    if args.json is not None:
        args.json.write_text(json.dumps({"target": args.target, **results}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
