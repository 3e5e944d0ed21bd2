"""Thermik against real Heat 27 and the cloud's own critical path, on the loopback cloud.

For each size N (``--servers 10 30``) one run builds, side by side, the same stack
(:mod:`cloud_stack`: net, subnet, router with a gateway on the public network, router
interface, security group with 2 rules, and N x port + server + floating IP; 5 + 3N resources)
three ways, one after the other, and deletes it again:

* **Heat 27**: real Heat of ``tools/heat-up.sh`` through its REST API (polled as a waiting
  client does);
* **Thermik**: Thermik's engine in this process, in local mode (acting as the demo user's
  ``loopback`` cloud of the cloud's ``clouds.yaml``);
* **critical path**: the same resources made directly with openstacksdk in the best parallel
  order (a thread per server), the yardstick of what the cloud itself needs.

For each it prints: the wall time of create (until every server is ACTIVE) and delete (until
everything is gone), the span from the first to the last stack event, the engine's CPU time
(heat-engine's process group from /proc; Thermik: this process over the operation), the cloud
requests the engine sent itself (Thermik's ClientPool counter; openstacksdk's requests for the
critical path; Heat's keystoneauth debug lines when it runs with
``THERMIK_HEAT_LOG_REQUESTS=1``) and
the requests each cloud API served meanwhile (its uWSGI request log: every client, the services
calling each other included, and anyone else using the cloud: the rate of that background is
measured before each operation). Then the ratios against the targets: Thermik's create within
10 % of the critical path, at most 2 requests per resource, at most a tenth of Heat's engine CPU.
``--repeat R`` repeats each size R times and prints medians.

Set-up it does itself: raises the demo and admin projects' quotas (never lowers them), warms
each engine up with a stack of one server (untimed: both load their client code on first use),
and checks after every delete that nothing named with the run's prefix (``bench-<id>-``) is
left, removing and reporting what is. It touches nothing else in the cloud.

    set -a; . .state/cloud.env; set +a    # the loopback cloud (tools/cloud-up.sh)
    tools/heat-up.sh                      # real Heat, .state/heat.env
    .venv/bin/python bench/cloud_bench.py [--servers 10 30] [--repeat 1] [--only heat,sdk,thermik]
        [--poll 0.5] [--heat-env .state/heat.env] [--client-timeout S] [--no-warmup]
        [--json FILE] [--sweep]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import openstack.config
from cloud_engines import Engine, InProcessThermik, RealHeat, cloud_env, heat_env
from cloud_meter import ServedRequests
from cloud_report import Measure, report
from cloud_stack import (
    Cloud,
    critical_path,
    leftovers,
    raise_quotas,
    resource_count,
    sweep,
    template,
    types_of,
)
from openstack.connection import Connection

ROOT = Path(__file__).resolve().parents[1]
#: Served requests are named by service type, as the engines' own counts are.
API_TYPES = {
    "keystone": "identity",
    "glance": "image",
    "placement": "placement",
    "nova-api": "compute",
    "neutron": "network",
}
BACKGROUND_SECONDS = 2.0


def connect(config_file: str, cloud: str) -> Connection:
    """A fresh connection to ``cloud`` of ``config_file``."""
    config = openstack.config.OpenStackConfig(config_files=[config_file])
    return Connection(config=config.get_one(cloud=cloud))


def served_by_type(counts: dict[str, int]) -> dict[str, int]:
    return {API_TYPES[api]: n for api, n in counts.items() if n}


def endpoint_roots(conn: Connection) -> dict[str, str]:
    """``scheme://host:port`` of each catalog endpoint, to its service type."""
    roots = {}
    auth: Any = conn.session.auth
    for service in auth.get_access(conn.session).service_catalog.catalog:
        for endpoint in service.get("endpoints", ()):
            url = str(endpoint.get("url", ""))
            if "//" in url:
                scheme, rest = url.split("//", 1)
                roots[f"{scheme}//{rest.split('/', 1)[0]}"] = str(service["type"])
    return roots


@dataclasses.dataclass
class Bench:
    """Everything one bench run shares."""

    args: argparse.Namespace
    env: dict[str, str]
    cloud: Cloud
    served: ServedRequests
    run_id: str = dataclasses.field(default_factory=lambda: uuid.uuid4().hex[:6])

    def conn(self, admin: bool = False) -> Connection:
        name = self.env["THERMIK_CLOUD_ADMIN" if admin else "THERMIK_CLOUD"]
        return connect(self.env["THERMIK_CLOUD_CONFIG"], name)

    def prefix(self, kind: str, servers: int, run: int | str) -> str:
        return f"bench-{self.run_id}-{kind}-n{servers}-{run}"

    def check_clean(self, prefix: str, floating_ips: list[str]) -> list[str]:
        """What of ``prefix`` is left (then removed)."""
        conn = self.conn()
        left = leftovers(conn, prefix, floating_ips)
        if left:
            print(f"  LEFT BEHIND by {prefix}: {', '.join(left)}; removing them")
            sweep(conn, prefix, log=lambda line: print(f"  {line}"))
        return left


def created_floating_ips(conn: Connection, prefix: str) -> list[str]:
    """The floating IPs of the ports named with ``prefix`` (to check they go with the stack)."""
    ports = {p.id for p in conn.network.ports() if (p.name or "").startswith(prefix)}
    return [ip.id for ip in conn.network.ips() if ip.port_id in ports]


def measure_engine(bench: Bench, engine: Engine, prefix: str, servers: int) -> Measure:
    """One create and delete of the stack by ``engine``."""
    tmpl = template(prefix, servers, bench.cloud)
    timeout = bench.args.timeout
    result = Measure(engine.name, servers)
    result.background = bench.served.rate(BACKGROUND_SECONDS)
    mark, cpu, own = bench.served.mark(), engine.cpu(), engine.own_requests()
    started = time.perf_counter()
    try:
        outcome = engine.create(prefix, tmpl, timeout)
    except Exception as error:  # the engine refused the stack: nothing to measure
        result.status, result.reason = "FAILED", f"{type(error).__name__}: {error}"
        result.left = bench.check_clean(prefix, [])
        return result
    result.create_seconds = time.perf_counter() - started
    after_cpu, after_own = engine.cpu(), engine.own_requests()
    result.served_create = served_by_type(bench.served.since(mark))
    result.cpu_create = after_cpu - cpu
    result.own_create = _delta(own, after_own)
    result.status = outcome.status
    if not outcome.ok:
        result.reason = outcome.reason
    result.span = engine.event_span(outcome.handle)
    floating_ips = created_floating_ips(bench.conn(), prefix)
    mark, cpu, own = bench.served.mark(), engine.cpu(), engine.own_requests()
    started = time.perf_counter()
    gone = engine.delete(outcome.handle, timeout)
    result.delete_seconds = time.perf_counter() - started
    result.served_delete = served_by_type(bench.served.since(mark))
    result.cpu_delete = engine.cpu() - cpu
    result.own_delete = _delta(own, engine.own_requests())
    if not gone.ok:
        result.status += f", {gone.status}"
        result.reason = (result.reason + " " + gone.reason).strip()
    result.left = bench.check_clean(prefix, floating_ips)
    return result


def measure_sdk(bench: Bench, prefix: str, servers: int) -> Measure:
    """The critical path: the same resources straight with openstacksdk."""
    result = Measure("critical path", servers)
    result.background = bench.served.rate(BACKGROUND_SECONDS)
    conn = bench.conn()
    marks = [bench.served.mark()]
    try:
        path = critical_path(
            conn,
            prefix,
            servers,
            bench.cloud,
            bench.args.poll,
            created=lambda: marks.append(bench.served.mark()),
        )
    except Exception as error:
        result.status, result.reason = "FAILED", f"{type(error).__name__}: {error}"
        result.left = bench.check_clean(prefix, [])
        return result
    finally:
        conn.close()
    result.served_create = served_by_type(_between(bench.served, marks[0], marks[1]))
    result.served_delete = served_by_type(bench.served.since(marks[1]))
    result.status = "COMPLETE"
    result.create_seconds, result.delete_seconds = path.create_seconds, path.delete_seconds
    result.own_create, result.own_delete = path.create_requests, path.delete_requests
    result.network_seconds = path.network_seconds
    result.left = bench.check_clean(prefix, path.floating_ips)
    return result


def _between(
    served: ServedRequests, first: dict[str, int], second: dict[str, int]
) -> dict[str, int]:
    total, later = served.since(first), served.since(second)
    return {api: total[api] - later[api] for api in total}


def _delta(before: dict[str, int] | None, after: dict[str, int] | None) -> dict[str, int] | None:
    if before is None or after is None:
        return None
    return {k: n - before.get(k, 0) for k, n in after.items() if n - before.get(k, 0)}


def engines(bench: Bench, only: set[str]) -> tuple[dict[str, Engine], dict[str, str]]:
    """The engines to measure, and why others are not (name -> reason)."""
    found: dict[str, Engine] = {}
    absent: dict[str, str] = {}
    tmpl_types = types_of(template("x", 1, bench.cloud))
    if "heat" in only:
        env_file = Path(bench.args.heat_env)
        if env_file.exists():
            conn = bench.conn()
            env = heat_env(env_file)
            project = str(conn.current_project_id)
            roots = endpoint_roots(conn)
            found["heat"] = RealHeat(env, conn.session, project, roots, bench.args.poll)
        else:
            absent["heat"] = f"n/a (no {env_file}: start tools/heat-up.sh)"
    if "thermik" in only:
        thermik = InProcessThermik(
            bench.env["THERMIK_CLOUD"],
            bench.env["THERMIK_CLOUD_CONFIG"],
            bench.args.poll,
            bench.args.client_timeout,
        )
        missing = thermik.missing_types(tmpl_types)
        if missing:
            thermik.close()
            absent["thermik"] = f"n/a (types missing: {', '.join(missing)})"
        else:
            found["thermik"] = thermik
    return found, absent


def warm_up(bench: Bench, found: dict[str, Engine]) -> None:
    """A stack of one server by each engine, untimed: both load client code on first use."""
    for key, engine in found.items():
        started = time.perf_counter()
        result = measure_engine(bench, engine, bench.prefix(key, 1, "warmup"), 1)
        print(
            f"warm-up {engine.name}: {result.status} in "
            f"{time.perf_counter() - started:.1f} s {result.reason}".rstrip()
        )


def run(bench: Bench, only: set[str]) -> list[Measure]:
    found, absent = engines(bench, only)
    for key, why in absent.items():
        print(f"{key}: {why}")
    if not bench.args.no_warmup:
        warm_up(bench, found)
    results: list[Measure] = []
    try:
        for servers in bench.args.servers:
            for repeat in range(bench.args.repeat):
                for key in ("heat", "sdk", "thermik"):
                    prefix = bench.prefix(key, servers, repeat)
                    if key == "sdk" and "sdk" in only:
                        results.append(_announce(measure_sdk(bench, prefix, servers)))
                    elif key in found:
                        measured = measure_engine(bench, found[key], prefix, servers)
                        results.append(_announce(measured))
    finally:
        thermik = found.get("thermik")
        if isinstance(thermik, InProcessThermik):
            thermik.close()
    names = {"heat": RealHeat.name, "thermik": InProcessThermik.name}
    for key, why in absent.items():
        results += [Measure(names[key], servers, status=why) for servers in bench.args.servers]
    return results


def _announce(result: Measure) -> Measure:
    print(
        f"  {result.engine} N={result.servers}: {result.status}, create"
        f" {result.create_seconds:.1f} s, delete {result.delete_seconds:.1f} s"
        f" {result.reason}".rstrip(),
        flush=True,
    )
    return result


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", type=int, nargs="+", default=[10, 30])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", default="heat,sdk,thermik", help="which of heat,sdk,thermik")
    parser.add_argument("--poll", type=float, default=0.5, help="status poll interval (s)")
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--heat-env", default=str(ROOT / ".state" / "heat.env"))
    parser.add_argument(
        "--client-timeout",
        type=int,
        help="Thermik's [clients] timeout (s) for each cloud request (default: Thermik's)",
    )
    parser.add_argument("--no-warmup", action="store_true")
    parser.add_argument("--json", help="also write the measurements to this file")
    parser.add_argument(
        "--sweep", action="store_true", help="first remove what earlier runs left (bench-*)"
    )
    return parser.parse_args(argv)


def main(argv: list[str]) -> None:
    args = parse(argv)
    env = cloud_env()
    cloud = Cloud(
        env.get("THERMIK_CLOUD_IMAGE", "thermik-tiny"),
        env.get("THERMIK_CLOUD_FLAVOR", "m1.tiny"),
        env.get("THERMIK_CLOUD_PUBLIC_NETWORK", "public"),
    )
    served = ServedRequests(Path(env["THERMIK_CLOUD_CONFIG"]).parent / "log")
    bench = Bench(args, env, cloud, served)
    admin = bench.conn(admin=True)
    for line in raise_quotas(admin, ["demo", "admin"]):
        print(f"quota raised: {line}")
    admin.close()
    if args.sweep:
        sweep(bench.conn(), "bench-")
    only = set(args.only.split(","))
    print(f"run bench-{bench.run_id}: N = {args.servers}, {args.repeat} time(s) each; {cloud}")
    results = run(bench, only)
    report(results, resource_count)
    if args.json:
        Path(args.json).write_text(json.dumps([dataclasses.asdict(r) for r in results], indent=1))
    if any(r.left for r in results):
        sys.exit("something was left behind in the cloud (removed; see above)")


if __name__ == "__main__":
    main(sys.argv[1:])
