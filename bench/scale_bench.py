"""Service mode at scale: stacks per minute and latencies with 1, 2, 4 ... thermik-engine
processes behind one thermik-api, and the same with one engine killed mid-run.

For each engine count of ``--engines`` a fresh cluster: a new database on the server of
``--db-url`` (migrated), a RabbitMQ virtual host of its own on ``--transport-url``, that many
``thermik-engine`` processes and one ``thermik-api`` (``[api] engine = rpc``, ``--api-workers``
pre-forked workers), started as ``tests/functional/rpc`` starts them (``cluster.py``: lease 6 s,
heartbeat 1 s), with the service's RPC call timeout (``--call-timeout``, 30 s; the tests' 3 s
refused creates that a loaded engine answered late). Then ``--clients`` threads create
``--stacks`` stacks of ``--resources`` independent ``OS::Heat::TestResource`` (each create
sleeping ``--wait`` s) through Heat's v1 REST API, one stack at a time each (POST, then a GET
of the stack every ``--poll`` s until it settles), while a probe GETs ``/stacks`` every
``--probe-interval`` s.

It prints per configuration: stacks completed per minute (first POST to last completion), the
p50/p99 create latency (POST to the first poll showing CREATE_COMPLETE), the probe's median and
p99 latency, the requests refused and the stacks that did not complete, the CPU seconds each
engine and the API (master and workers) used during the load, and the load average.

``--kill`` adds, for each engine count above 1, a run in which the engine driving the most
stacks is killed (SIGKILL) once half the stacks have been requested: its stacks must complete
on the other engines once its leases expire; those that do not are counted.

    .venv/bin/python bench/scale_bench.py [--stacks 200] [--resources 20] [--clients 20]
        [--engines 1,2,4] [--kill] [--wait 0.2] [--db-url postgresql+psycopg://...]
        [--transport-url rabbit://guest:guest@127.0.0.1:5672/] [--json FILE]

A smoke run (``--stacks 10 --resources 5 --engines 1,2 --kill``) takes about a minute.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scale_heat import HeatCluster
from scale_heat import unavailable as heat_unavailable
from scale_load import Load, Results, stack_template, summary

from tests import dbservers
from tests.functional.rpc.cluster import (
    KEY,
    Api,
    ScaledCluster,
    cpu_seconds,
    free_port,
    migrate,
    own_vhost,
    rabbit_unreachable,
    write_config,
)
from thermik.conf.settings import DatabaseSettings, RpcSettings
from thermik.persistence.factory import open_store

RABBIT = "rabbit://guest:guest@127.0.0.1:5672/"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stacks", type=int, default=200)
    parser.add_argument("--resources", type=int, default=20, help="per stack")
    parser.add_argument("--clients", type=int, default=20, help="concurrent clients")
    parser.add_argument("--engines", default="1,2,4", help="engine counts, comma-separated")
    parser.add_argument("--kill", action="store_true", help="also kill one engine mid-run")
    parser.add_argument("--wait", type=float, default=0.2, help="each resource's create (s)")
    parser.add_argument("--api-workers", type=int, default=2)
    parser.add_argument("--poll", type=float, default=0.25, help="a client's poll period (s)")
    parser.add_argument("--probe-interval", type=float, default=0.25, help="seconds")
    parser.add_argument("--timeout", type=float, default=300, help="per stack (s)")
    parser.add_argument(
        "--call-timeout",
        type=int,
        default=RpcSettings().call_timeout,
        help="[rpc] call_timeout of the Thermik cluster (s)",
    )
    parser.add_argument("--db-url", default=dbservers.SERVER_URLS["postgresql"])
    parser.add_argument(
        "--transport-url", default=os.environ.get("THERMIK_TEST_RABBIT_URL", RABBIT)
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--target", choices=sorted(TARGETS), default="thermik")
    args = parser.parse_args(argv)
    try:
        args.engine_counts = [int(n) for n in args.engines.split(",")]
    except ValueError:
        parser.error(f"--engines: {args.engines!r} is not a comma-separated list of numbers")
    if any(n < 1 for n in args.engine_counts) or args.stacks < 1 or args.clients < 1:
        parser.error("--engines, --stacks and --clients must be at least 1")
    return args


class Deployment(Protocol):
    """A running engine cluster as the bench drives, measures and kills it."""

    api: Api

    def engine_cpu(self) -> dict[str, float]:
        """Engine id -> CPU seconds so far, of every live engine."""

    def api_cpu(self) -> float:
        """CPU seconds of the API's processes so far."""

    def victim(self, running: dict[str, str]) -> tuple[str, list[str]]:
        """The engine to kill, and which of the ``running`` stacks (name -> id) it drives."""

    def kill(self, engine_id: str) -> None:
        """SIGKILL to that engine."""


class ThermikDeployment:
    """thermik-engine processes and one thermik-api of workers, on one database."""

    def __init__(self, built: ScaledCluster, url: str) -> None:
        assert built.api is not None
        self.built = built
        self.url = url
        self.api = Api(built.api)
        self.dead: set[str] = set()

    def engine_cpu(self) -> dict[str, float]:
        engines = self.built.engines
        return {e.engine_id: e.cpu_seconds() for e in engines if e.engine_id not in self.dead}

    def api_cpu(self) -> float:
        assert self.built.api is not None
        return sum(cpu_seconds(pid) for pid in [self.built.api.process.pid, *self.built.workers])

    def victim(self, running: dict[str, str]) -> tuple[str, list[str]]:
        """The engine holding the most leases of the running stacks."""
        store = open_store(DatabaseSettings(self.url, pool_size=1), KEY)
        try:
            leases = {name: store.get_lease(stack_id) for name, stack_id in running.items()}
        finally:
            store.close()
        holders = {name: lease.engine_id for name, lease in leases.items() if lease is not None}
        ids = [e.engine_id for e in self.built.engines]
        chosen = max(ids, key=lambda e: sum(h == e for h in holders.values()))
        return chosen, sorted(n for n, e in holders.items() if e == chosen)

    def kill(self, engine_id: str) -> None:
        self.built.engine(engine_id).kill()
        self.dead.add(engine_id)


@contextlib.contextmanager
def thermik(
    args: argparse.Namespace,
    engines: int,
    directory: Path,
    url: str,
    bus: tuple[str, str],
    default: str = "",
) -> Iterator[Deployment]:
    """Thermik started on the fresh database ``url`` and the transport URL ``bus[0]`` with
    topics named after ``bus[1]`` (``default``: more ``[DEFAULT]`` lines)."""
    migrate(url)
    port = free_port()
    config = write_config(
        directory / "thermik.conf",
        url,
        bus[0],
        bus[1],
        api=f"workers = {args.api_workers}\nbind_port = {port}",
        default=default,
        call_timeout=args.call_timeout,
    )
    built = ScaledCluster(config, port, engines, args.api_workers)
    try:
        built.start()
        yield ThermikDeployment(built, url)
    finally:
        built.close()


@contextlib.contextmanager
def heat(
    args: argparse.Namespace, engines: int, directory: Path, url: str, bus: tuple[str, str]
) -> Iterator[Deployment]:
    """Real Heat started on the same terms (``scale_heat.py``)."""
    with HeatCluster(directory, engines, args.api_workers).running(url, *bus) as deployment:
        yield deployment


TARGETS = {"thermik": thermik, "heat": heat}


class Killer:
    """Kills one engine of ``deployment`` when called, and keeps what became of its stacks."""

    def __init__(self, deployment: Deployment, load: Load) -> None:
        self.deployment = deployment
        self.load = load
        self.victim = ""
        #: The names of the running stacks the victim drove.
        self.doomed: list[str] = []
        self.cpu = 0.0
        self.at = 0.0

    def __call__(self) -> None:
        with self.load.lock:
            running = self.load.results.running()
        self.victim, self.doomed = self.deployment.victim(running)
        self.cpu = self.deployment.engine_cpu()[self.victim]
        self.deployment.kill(self.victim)
        self.at = time.monotonic()
        print(
            f"  killed engine {self.victim[:8]} (SIGKILL) after {self.load.requested} requests;"
            f" it drove {len(self.doomed)} of the {len(running)} running stacks",
            flush=True,
        )

    def figures(self, results: Results) -> dict[str, Any]:
        """What became of the victim's stacks: how many, those that did not complete, and
        seconds from the kill to the last of them completing on another engine."""
        ends = [results.completed[n][1] for n in self.doomed if n in results.completed]
        return {
            "victim_stacks": len(self.doomed),
            "victim_unfinished": sorted(set(self.doomed) - set(results.completed)),
            "victim_recovered_s": round(max(ends) - self.at, 1) if ends else None,
        }


def run_one(
    args: argparse.Namespace, engines: int, kill: bool, bus: tuple[str, str]
) -> dict[str, Any]:
    """One configuration, start to clean-up, with topics of its own on ``bus`` (the transport
    URL and a name); its figures."""
    label = f"{args.target}, {engines} engine{'s' if engines > 1 else ''}"
    label += ", one killed" if kill else ""
    print(f"{label}: starting (load average {load_average()})", flush=True)
    backend = make_url(args.db_url).get_backend_name()
    own_bus = (bus[0], f"{bus[1]}_{engines}{'k' * kill}")
    with (
        tempfile.TemporaryDirectory(prefix="scale-bench-") as scratch,
        dbservers.scratch_database(backend, Path(scratch), server_url=args.db_url) as url,
        TARGETS[args.target](args, engines, Path(scratch), url, own_bus) as deployment,
    ):
        load = Load(deployment.api, stack_template(args.resources, args.wait), args)
        killer = None
        if kill:
            killer = Killer(deployment, load)
            load.trigger, load.trigger_at = killer, max(args.stacks // 2, 1)
        before, api_before = deployment.engine_cpu(), deployment.api_cpu()
        results = load.run()
        after = {**deployment.engine_cpu(), **({killer.victim: killer.cpu} if killer else {})}
        figures = {
            "target": args.target,
            "engines": engines,
            "killed": kill,
            **summary(results),
            "engine_cpu_s": {e: round(after[e] - t, 2) for e, t in before.items()},
            "api_cpu_s": round(deployment.api_cpu() - api_before, 2),
            "load_average": load_average(),
        }
        figures["unfinished_states"] = dict(sorted(results.unfinished.items()))
        figures["refused_answers"] = dict(sorted(results.refused.items()))
        if killer is not None:
            figures.update(killer.figures(results))
    report(label, figures, results)
    return figures


def report(label: str, figures: dict[str, Any], results: Results) -> None:
    """Print one configuration's figures."""
    print(
        f"{label}: {figures['completed']} stacks complete in {figures['wall_s']} s:"
        f" {figures['stacks_per_minute']} stacks/min; create p50 {figures['create_p50_s']} s,"
        f" p99 {figures['create_p99_s']} s; GET /stacks median {figures['api_median_ms']} ms,"
        f" p99 {figures['api_p99_ms']} ms ({figures['probes']} probes,"
        f" {figures['probe_errors']} failed)",
        flush=True,
    )
    cpu = ", ".join(f"{engine_id[:8]} {s}" for engine_id, s in figures["engine_cpu_s"].items())
    print(f"  CPU s: engines {cpu}; API {figures['api_cpu_s']}; load {figures['load_average']}")
    if "victim_stacks" in figures:
        print(
            f"  the killed engine's {figures['victim_stacks']} running stacks:"
            f" {len(figures['victim_unfinished'])} did not complete; the last completed"
            f" {figures['victim_recovered_s']} s after the kill"
        )
    print(f"  refused {figures['refused']}, not complete {figures['unfinished']}")
    for what, found in (("not complete", results.unfinished), ("refused", results.refused)):
        for name, why in sorted(found.items())[:10]:
            print(f"    {what} {name}: {why}")


def load_average() -> str:
    """The 1, 5 and 15 minute load averages."""
    return " ".join(f"{n:.2f}" for n in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    """Run every configuration; 1 when an accepted stack did not complete (or a request was
    refused without a kill), 2 when a service is missing, else 0."""
    args = parse_args(argv)
    reasons = [database_unavailable(args), rabbit_unreachable(args.transport_url)]
    if args.target == "heat":
        reasons.append(heat_unavailable())
    for reason in reasons:
        if reason is not None:
            print(f"scale_bench: {reason}", file=sys.stderr)
            return 2
    # SIGTERM ends the run as Ctrl-C does: every cluster's processes are stopped.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    print(
        f"{args.stacks} stacks of {args.resources} test resources ({args.wait} s each),"
        f" {args.clients} clients, {args.api_workers} API workers; {time.strftime('%F %T %Z')}"
    )
    runs = []
    # One virtual host for the whole run (rabbitmqctl takes seconds): each configuration's
    # topics are its own.
    with own_vhost(args.transport_url) as bus:
        for engines in args.engine_counts:
            runs.append(run_one(args, engines, False, bus))
            if args.kill and engines > 1:
                runs.append(run_one(args, engines, True, bus))
    if args.json is not None:
        args.json.write_text(json.dumps(runs, indent=2), encoding="utf-8")
    # A request refused while an engine dies may be fair; an accepted stack must complete.
    return 1 if any(r["unfinished"] or (r["refused"] and not r["killed"]) for r in runs) else 0


def database_unavailable(args: argparse.Namespace) -> str | None:
    """Why the database server of ``--db-url`` cannot be used, or ``None``."""
    backend = make_url(args.db_url).get_backend_name()
    if backend not in dbservers.SERVER_URLS:
        return f"--db-url: {backend} is not a database server (PostgreSQL or MySQL/MariaDB)"
    return dbservers.unavailable(backend, args.db_url)


if __name__ == "__main__":
    sys.exit(main())
