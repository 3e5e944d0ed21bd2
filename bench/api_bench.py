"""API layer overhead: requests per second through the Falcon app and the built-in server.

Runs against the dict-backed test implementation of the service, so the figures are the cost of
routing, parsing, formatting and HTTP alone (no engine, no database).

    .venv/bin/python bench/api_bench.py [--stacks N] [--requests N]
"""

from __future__ import annotations

import argparse
import http.client
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import falcon.testing

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.unit.api.conftest import TEMPLATE
from tests.unit.api.memory_service import MemoryService
from thermik.api.app import make_app
from thermik.api.wsgi_server import make_server
from thermik.conf.settings import ApiSettings, LimitSettings


def rate(label: str, count: int, run: Callable[[], None]) -> None:
    """Print how many times per second ``run`` completes."""
    start = time.perf_counter()
    for _ in range(count):
        run()
    elapsed = time.perf_counter() - start
    print(f"{label:<48} {count / elapsed:10.0f} req/s  ({elapsed * 1000 / count:.2f} ms each)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--stacks", type=int, default=200)
    parser.add_argument("--requests", type=int, default=500)
    args = parser.parse_args()

    app = make_app(MemoryService(), ApiSettings(), limits=LimitSettings())
    client = falcon.testing.TestClient(app)
    paths = []
    for index in range(args.stacks):
        body = {"stack_name": f"s{index}", "template": TEMPLATE}
        paths.append(client.simulate_post("/v1/t/stacks", json=body).headers["location"])
    stack = paths[0].split("falconframework.org", 1)[1]

    rate("in-process GET stack show", args.requests, lambda: client.simulate_get(stack))
    rate(
        "in-process GET stack lookup (302)",
        args.requests,
        lambda: client.simulate_get("/v1/t/stacks/s0"),
    )
    rate(
        f"in-process GET stack list ({args.stacks} stacks)",
        max(args.requests // 10, 10),
        lambda: client.simulate_get("/v1/t/stacks"),
    )
    rate(
        "in-process GET events (6)", args.requests, lambda: client.simulate_get(stack + "/events")
    )

    server = make_server(app, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    port = server.server_address[1]

    def fetch() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", stack)
        connection.getresponse().read()
        connection.close()

    rate("loopback GET stack show, 1 client", args.requests, fetch)
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=8) as pool:
        for future in [pool.submit(fetch) for _ in range(args.requests)]:
            future.result()
    elapsed = time.perf_counter() - start
    print(f"{'loopback GET stack show, 8 clients':<48} {args.requests / elapsed:10.0f} req/s")
    server.shutdown()
    server.server_close()


if __name__ == "__main__":
    main()
