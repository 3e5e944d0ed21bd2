"""Racing deployments on one server: object writes, time to serve the full list, lost updates.

By default runs Thermik's per-server metadata writer against the fake Swift on a virtual clock
(proxies with clocks skewed within +-SKEW seconds, loopback-like latency, writes reordered by a
few milliseconds), many seeded rounds per N; times are simulated seconds from the first
arrival. ``--actor`` instead runs the real ServerMetadataActor (pykka, an executor, timers) in
real time against the fake Swift, or with ``--swift`` against the Swift named by
THERMIK_SWIFT_AUTH_URL / THERMIK_SWIFT_USER / THERMIK_SWIFT_KEY (tempauth). ``--engine`` runs
N deployments to one server through the whole engine (a stack created on an embedded engine,
a stand-in agent signalling) with the builtin backend, the fake Swift and, with ``--swift``,
the real one. When those THERMIK_SWIFT_* variables are set, the simulated run is followed by
real-time rounds on the real Swift. Usage::

    python bench/delivery_bench.py [--rounds 200] [--skew 2.0] [--engines 1] [--spread 0.005]
    python bench/delivery_bench.py --actor [--swift] [--rounds 5] [--skew 0.5]
    python bench/delivery_bench.py --engine [--swift] [--rounds 3] [--sizes 20 100]
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import os
import queue
import random
import statistics
import time
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import pykka
from deployment_engine import engine_round

from thermik.conf.settings import SwiftSettings
from thermik.delivery import document
from thermik.delivery.base import DeliveryBackend, ServerRef
from thermik.delivery.fakeswift_cluster import FakeSwiftCluster
from thermik.delivery.impl_fakeswift import FakeSwiftBackend
from thermik.delivery.impl_swift import SwiftBackend
from thermik.delivery.messages import DeliveryReport, MetadataChanged, MetadataDelivered
from thermik.delivery.metadata_actor import EffectRunner, ServerMetadataActor
from thermik.delivery.race import NETWORK, RaceConfig, RoundResult, run_round
from thermik.delivery.stores import InMemoryDeployments, InMemoryGenerationStore

WHEN = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


def quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def row(n: int, results: list[RoundResult], wall: float) -> str:
    writes = [r.writes for r in results]
    full = [r.full_at for r in results if r.full_at is not None]
    confirmed = [r.confirmed_at for r in results if r.confirmed_at is not None]
    lost = sum(r.missing for r in results)
    lost_rounds = sum(r.missing > 0 for r in results)
    stale = sum(r.stale for r in results)
    return (
        f"{n:>5} | {statistics.mean(writes):6.2f} {quantile(writes, 0.95):4.0f} {max(writes):4d}"
        f" | {statistics.mean(r.dropped_writes for r in results):7.2f}"
        f" | {quantile(full, 0.5):6.3f} {quantile(full, 0.95):6.3f} {max(full):6.3f}"
        f" | {quantile(confirmed, 0.5):6.3f} {quantile(confirmed, 0.95):6.3f}"
        f" {max(confirmed):6.3f}"
        f" | {lost:4d} ({lost_rounds} rounds) | {stale:5d} | {wall:5.1f}"
    )


def simulated(args: argparse.Namespace) -> None:
    base = RaceConfig(max_skew=args.skew, engines=args.engines, arrival_spread=args.spread)
    print(
        f"fake Swift (simulated time), {base.proxies} proxies with clocks within +-{args.skew} s,"
        f" {args.engines} engine process(es), deployments arriving within {args.spread} s,"
        f" {args.rounds} rounds per N"
    )
    print(
        "    N | writes mean p95  max | dropped | full list served s p50/p95/max"
        " | delivery confirmed s p50/p95/max | lost deployments | stale | wall s"
    )
    for n in args.sizes:
        config = dataclasses.replace(base, deployments=n)
        started = time.perf_counter()
        results = [run_round(config, seed) for seed in range(args.rounds)]
        print(row(n, results, time.perf_counter() - started))


SWIFT_ENV = ("THERMIK_SWIFT_AUTH_URL", "THERMIK_SWIFT_USER", "THERMIK_SWIFT_KEY")


def swift_present() -> bool:
    """Whether the environment names a real Swift."""
    return all(os.environ.get(name) for name in SWIFT_ENV)


def swift_settings() -> SwiftSettings:
    return SwiftSettings(
        auth_url=os.environ["THERMIK_SWIFT_AUTH_URL"],
        auth_version=os.environ.get("THERMIK_SWIFT_AUTH_VERSION", "1"),
        username=os.environ["THERMIK_SWIFT_USER"],
        password=os.environ["THERMIK_SWIFT_KEY"],
        container_prefix=f"thermik-bench-{uuid.uuid4().hex[:8]}",
    )


def fake_swift(skew: float, round_no: int, *, serve: bool = False) -> FakeSwiftBackend:
    """The fake Swift with three proxies whose clocks are within +-``skew`` seconds."""
    rng = random.Random(round_no)
    offsets = tuple(rng.uniform(-skew, skew) for _ in range(3))
    knobs = dataclasses.replace(NETWORK, proxy_offsets=offsets)
    return FakeSwiftBackend(FakeSwiftCluster(knobs, seed=round_no), serve=serve)


def make_backend(args: argparse.Namespace, round_no: int) -> DeliveryBackend:
    if args.swift:
        return SwiftBackend(swift_settings())
    return fake_swift(args.skew, round_no)


def actor_round(args: argparse.Namespace, n: int, round_no: int, pool: ThreadPoolExecutor) -> str:
    """N changes told to one actor at once; writes, seconds until the latest is confirmed
    served, and deployments missing from what is served then."""
    backend = make_backend(args, round_no)
    server = f"srv-{uuid.uuid4()}"
    endpoint = backend.provision(ServerRef(server))
    generations = InMemoryGenerationStore()
    deployments = InMemoryDeployments()
    deployments.add_server(server, endpoint.collector, endpoint.collector_settings)
    reports: queue.Queue[DeliveryReport] = queue.Queue()
    runner = EffectRunner(endpoint, backend, generations, deployments)
    actor = ServerMetadataActor.start(runner=runner, executor=pool, notify=reports.put)
    started = time.perf_counter()
    for index in range(n):
        facts = document.DeploymentFacts(
            server, "CREATE", "bench/1", f"d{index}", "NO_SIGNAL", f"bench-d{index}"
        )
        source = document.SourceConfig(name=f"step-{index:04d}", config="true")
        config = document.derive_config(source, facts, config_id=f"c{index}", created_at=WHEN)
        deployments.put_deployment(server, f"d{index}", config)
        actor.tell(MetadataChanged(server))
    writes = 0
    while True:
        report = reports.get(timeout=300)
        if isinstance(report, MetadataDelivered):
            writes += report.writes
            if report.generation == generations.get_metadata_generation(server):
                break
    elapsed = time.perf_counter() - started
    actor.stop()
    served = document.deployment_ids(backend.read_back(endpoint))
    lost = len({f"c{i}" for i in range(n)} - served)
    if args.swift:
        backend.revoke(endpoint)
    backend.close()
    return f"{n:>5} | {writes:6d} | {elapsed:8.3f} | {lost:4d}"


def real_time(args: argparse.Namespace) -> None:
    where = "real Swift" if args.swift else f"fake Swift, 3 proxies within +-{args.skew} s"
    print(f"ServerMetadataActor in real time, {where}, {args.rounds} rounds per N")
    print("    N | writes | served s | lost")
    with ThreadPoolExecutor(8) as pool:
        for n in args.sizes:
            for round_no in range(args.rounds):
                print(actor_round(args, n, round_no, pool))
    pykka.ActorRegistry.stop_all()


def whole_engine(args: argparse.Namespace) -> None:
    kinds = ["builtin", "fakeswift", *(["swift"] if args.swift else [])]
    print(f"whole engine, one DeployedServer and N deployments, {args.rounds} rounds per N")
    print("  backend |     N | CREATE_COMPLETE s | metadata writes | lost | state")
    for kind in kinds:
        for n in args.sizes:
            for round_no in range(args.rounds):
                backend: DeliveryBackend | None = None
                if kind == "fakeswift":
                    backend = fake_swift(args.skew, round_no, serve=True)
                swift = swift_settings() if kind == "swift" else None
                found = engine_round(n, backend=backend, swift=swift)
                print(
                    f"{kind:>9} | {n:>5} | {found.seconds:17.3f} | {found.writes:15d}"
                    f" | {found.lost:4d} | {found.status}"
                )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--skew", type=float, default=2.0)
    parser.add_argument("--engines", type=int, default=1)
    parser.add_argument("--spread", type=float, default=0.005)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 50, 200])
    parser.add_argument("--actor", action="store_true", help="real actor, real time")
    parser.add_argument("--engine", action="store_true", help="through the whole engine")
    parser.add_argument(
        "--swift", action="store_true", help="with --actor or --engine: a real Swift"
    )
    args = parser.parse_args(argv)
    if args.engine:
        whole_engine(args)
    elif args.actor:
        real_time(args)
    else:
        simulated(args)
        if swift_present():
            print()
            real_args = dict(vars(args), swift=True, rounds=min(args.rounds, 3))
            real_args["sizes"] = [n for n in args.sizes if n <= 50] or [10]
            real_time(argparse.Namespace(**real_args))


if __name__ == "__main__":
    main()
