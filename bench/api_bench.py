"""The REST API over the real engine: requests per second and create latency over loopback.

Builds the orchestration service as ``thermik-api`` does (embedded SQLite in a scratch
directory, the plugins, the actor runtime), stores ``--stacks`` small stacks through it, and
serves it with the server ``thermik-api`` runs (waitress, ``--server waitress``) or the
standard library's threaded one (``--server stdlib``, for comparison). Load comes from separate
processes (so the clients do not share the server's interpreter lock) over plain HTTP/1.0
connections:

* stack show, stack list (one page of 20 and the whole tenant) and event list: requests per
  second with 1 and ``--clients`` concurrent clients, and the median latency;
* create -> CREATE_COMPLETE as a polling python-heatclient sees it (``stacks.create``, then
  ``stacks.get`` every ``--poll`` seconds): the median over ``--runs`` stacks.

    .venv/bin/python bench/api_bench.py [--stacks 1000] [--seconds 3] [--clients 4] [--runs 9]
                                        [--server waitress|stdlib]
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from heatclient import client as heat_client

from tests.loopback import serve
from thermik.api.app import make_app
from thermik.api.auth import WsgiApp
from thermik.api.boundary import RequestContext, StackRequest
from thermik.api.production_server import ProductionServer, listen
from thermik.conf.settings import ApiSettings, LimitSettings, Settings
from thermik.orchestration import Orchestrator
from thermik.service import build_orchestration_service

TENANT = "bench"
#: The stored stacks: one resource, an output (4 events each).
SMALL: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "resources": {"thing": {"type": "OS::Heat::RandomString", "properties": {"length": 8}}},
    "outputs": {"value": {"value": {"get_attr": ["thing", "value"]}}},
}
#: What the create latency is measured on: two test resources in a chain, and the above.
CHAIN: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "first": {"type": "OS::Heat::TestResource", "properties": {"value": "a"}},
        "second": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_attr": ["first", "output"]}},
        },
    },
    "outputs": {"echo": {"value": {"get_attr": ["second", "output"]}}},
}


def populate(service: Orchestrator, count: int) -> list[str]:
    """Store ``count`` small stacks through the service; their canonical paths."""
    ctx = RequestContext(TENANT)
    started = time.perf_counter()
    identities = [
        service.create_stack(ctx, StackRequest(name=f"s{n:05d}", template=SMALL))
        for n in range(count)
    ]
    for identity in identities:
        state = service.runtime.wait(identity.id, 120)
        assert state.settled, f"{identity.name} did not settle"
    elapsed = time.perf_counter() - started
    print(f"stored {count} stacks through the service in {elapsed:.1f} s")
    return [f"/v1/{TENANT}/stacks/{i.name}/{i.id}" for i in identities]


def hammer(port: int, path: str, seconds: float) -> tuple[int, list[float]]:
    """One client: GET ``path`` until ``seconds`` passed; (requests, latencies)."""
    latencies = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        start = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("GET", path, headers={"Accept": "application/json"})
        response = connection.getresponse()
        response.read()
        connection.close()
        assert response.status == 200, (path, response.status)
        latencies.append(time.perf_counter() - start)
    return len(latencies), latencies


def rate(pool: ProcessPoolExecutor, port: int, label: str, path: str, args: Any) -> None:
    """Print requests per second of ``path`` with 1 and ``args.clients`` clients."""
    for clients in sorted({1, args.clients}):
        futures = [pool.submit(hammer, port, path, args.seconds) for _ in range(clients)]
        results = [future.result() for future in futures]
        count = sum(done for done, _ in results)
        latencies = [latency for _, found in results for latency in found]
        print(
            f"{label:<36} {clients:>2} client(s) {count / args.seconds:8.0f} req/s"
            f"   median {statistics.median(latencies) * 1000:6.1f} ms"
        )


def create_latency(root: str, template: dict[str, Any], name: str, label: str, args: Any) -> None:
    """Median time from ``stacks.create`` to a ``stacks.get`` showing CREATE_COMPLETE."""
    heat = heat_client.Client("1", endpoint=f"{root}/v1/{TENANT}", token="bench")
    timings = []
    for run in range(args.runs):
        start = time.perf_counter()
        created = heat.stacks.create(stack_name=f"{name}{run}", template=template)
        while (status := heat.stacks.get(created["stack"]["id"]).stack_status) not in (
            "CREATE_COMPLETE",
            "CREATE_FAILED",
        ):
            time.sleep(args.poll)
        assert status == "CREATE_COMPLETE", status
        timings.append(time.perf_counter() - start)
    median = statistics.median(timings) * 1000
    print(
        f"create -> CREATE_COMPLETE, {label:<18} median {median:6.0f} ms"
        f"   (min {min(timings) * 1000:.0f}, max {max(timings) * 1000:.0f};"
        f" {args.runs} runs, polling every {args.poll * 1000:.0f} ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stacks", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=3.0, help="per rate measurement")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--runs", type=int, default=9, help="stacks timed for create latency")
    parser.add_argument("--poll", type=float, default=0.01, help="heatclient poll period (s)")
    parser.add_argument("--server", choices=("waitress", "stdlib"), default="waitress")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as state:
        service = build_orchestration_service(Settings.embedded(Path(state)))
        served = serve_waitress if args.server == "waitress" else serve
        try:
            with served(make_app(service, ApiSettings(), limits=LimitSettings())) as root:
                measure(service, root, args)
        finally:
            service.close()


@contextlib.contextmanager
def serve_waitress(app: WsgiApp) -> Iterator[str]:
    """``app`` under the production server, as ``thermik-api`` runs it (default settings)."""
    sock = listen("127.0.0.1", 0)
    server = ProductionServer(app, sock, ApiSettings(), 2 * LimitSettings().max_json_body_size)
    threading.Thread(target=server.serve, daemon=True).start()
    yield f"http://127.0.0.1:{server.address[1]}"


def measure(service: Orchestrator, root: str, args: Any) -> None:
    """Populate the service, then print every figure against the API at ``root``."""
    paths = populate(service, args.stacks)
    middle = paths[len(paths) // 2]
    port = int(root.rsplit(":", 1)[1])
    with ProcessPoolExecutor(max_workers=args.clients) as pool:
        rate(pool, port, "GET stack show", middle, args)
        rate(pool, port, "GET stack list (limit=20)", f"/v1/{TENANT}/stacks?limit=20", args)
        rate(pool, port, f"GET stack list (all {args.stacks})", f"/v1/{TENANT}/stacks", args)
        rate(pool, port, "GET event list (4 events)", middle + "/events", args)
    create_latency(root, SMALL, "one", "one RandomString", args)
    create_latency(root, CHAIN, "chain", "two chained", args)


if __name__ == "__main__":
    main()
