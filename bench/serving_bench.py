"""Half-sent requests (slowloris) against the real ``thermik-api``, and against other servers.

Starts ``thermik-api --bind-port 0`` on a scratch embedded database with ``--threads`` and
``--timeout`` (``[api] threads``, ``client_socket_timeout``), then:

* throughput: GET /v1/<tenant>/stacks from ``--clients`` client processes for ``--seconds``;
* ``--half-sent`` connections, every other one stopped in its headers, the rest in its body,
  and meanwhile ``--probes`` normal requests one after the other: their median and worst
  latency, then when the server closed the half-sent connections (first and last, seconds
  after they were opened).

With ``--compare`` the same half-sent measurement runs against a trivial WSGI application
under each WSGI server found in ``--servers-bin`` (gunicorn's gthread worker,
uWSGI with its own HTTP socket and with its HTTP router, waitress), configured with the same
threads and timeout; a missing one is reported as such.

    .venv/bin/python bench/serving_bench.py [--half-sent 300] [--threads 4] [--timeout 2]
                                             [--compare [--servers-bin DIR]]
"""

from __future__ import annotations

import argparse
import http.client
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

BIN = Path(sys.executable).parent
SERVING = re.compile(r"Serving the Heat v1 API on http://[^:]+:(\d+)/v1")
TRIVIAL_APP = textwrap.dedent(
    """
    def application(environ, start_response):
        environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        start_response("200 OK", [("Content-Length", "2")])
        return [b"ok"]
    """
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_listening(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"nothing listens on {port}")


def start_thermik_api(
    workdir: Path, threads: int, timeout: int
) -> tuple[subprocess.Popen[str], int]:
    config = workdir / "thermik.conf"
    config.write_text(
        f"[DEFAULT]\nstate_dir = {workdir / 'state'}\n"
        f"[api]\nthreads = {threads}\nclient_socket_timeout = {timeout}\n",
        encoding="utf-8",
    )
    log = workdir / "thermik-api.log"
    with log.open("w", encoding="utf-8") as stderr:
        # A file, not a pipe: a pipe nobody reads would block the server once full.
        process = subprocess.Popen(
            [str(BIN / "thermik-api"), "--config-file", str(config), "--bind-port", "0"],
            stderr=stderr,
        )
    deadline = time.monotonic() + 60
    while process.poll() is None and time.monotonic() < deadline:
        found = SERVING.search(log.read_text(encoding="utf-8"))
        if found:
            return process, int(found.group(1))
        time.sleep(0.1)
    raise SystemExit(f"thermik-api did not start: {log.read_text(encoding='utf-8')}")


def request_latency(port: int, path: str, timeout: float = 60) -> float | None:
    """Seconds one GET took, or None when it failed or took longer than ``timeout``."""
    started = time.monotonic()
    try:
        client = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        client.request("GET", path)
        client.getresponse().read()
        client.close()
    except OSError:
        return None
    return time.monotonic() - started


def client_loop(port: int, path: str, seconds: float) -> int:
    done = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if request_latency(port, path) is not None:
            done += 1
    return done


def throughput(port: int, path: str, clients: int, seconds: float) -> float:
    with ProcessPoolExecutor(clients) as pool:
        counts = pool.map(client_loop, [port] * clients, [path] * clients, [seconds] * clients)
        return sum(counts) / seconds


def half_sent(port: int, number: int, path: str) -> list[socket.socket]:
    opened = []
    for n in range(number):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        if n % 2:
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n".encode())
        else:
            sock.sendall(
                f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{{".encode()
            )
        sock.setblocking(False)
        opened.append(sock)
    return opened


def closed_at(held: list[socket.socket], opened: float, wait: float) -> list[float]:
    """When the server closed each connection (seconds after ``opened``, as first seen),
    looking until ``wait`` seconds after ``opened``."""
    closed: dict[int, float] = {}
    while True:
        for n, sock in enumerate(held):
            if n in closed:
                continue
            try:
                if sock.recv(4096) == b"":
                    closed[n] = time.monotonic() - opened
            except BlockingIOError:
                pass
            except OSError:
                closed[n] = time.monotonic() - opened
        if len(closed) == len(held) or time.monotonic() - opened >= wait:
            return sorted(closed.values())
        time.sleep(0.05)


def slowloris(port: int, path: str, number: int, probes: int, wait: float) -> str:
    held = half_sent(port, number, path)
    opened = time.monotonic()
    try:
        answered = []
        for _ in range(probes):
            # A probe left unanswered is the answer: no point waiting for the next ones.
            latency = request_latency(
                port, path, timeout=max(wait - (time.monotonic() - opened), 1)
            )
            if latency is None:
                break
            answered.append(latency)
        closes = closed_at(held, opened, 2 * wait)
    finally:
        for sock in held:
            sock.close()
    if answered:
        median, worst = statistics.median(answered) * 1000, max(answered) * 1000
        meanwhile = (
            f"{len(answered)}/{probes} answered, median {median:.1f} ms, worst {worst:.1f} ms"
        )
    else:
        meanwhile = f"0/{probes} answered (the first gave up after {wait:.0f} s)"
    if closes:
        closing = (
            f"{len(closes)}/{number} closed by the server, {closes[0]:.2f}..{closes[-1]:.2f} s"
        )
    else:
        closing = f"0/{number} closed within {2 * wait:.0f} s"
    return f"normal requests meanwhile: {meanwhile}; half-sent: {closing}"


def compared_servers(
    bin_dir: Path, app_dir: Path, port: int, threads: int, timeout: int
) -> dict[str, list[str]]:
    """The command line of each server installed in ``bin_dir``'s environment."""
    python = str(bin_dir / "python")
    BIN = bin_dir  # noqa: N806 - the same spelling as for thermik-api's own environment
    servers: dict[str, list[str]] = {}
    if shutil.which("gunicorn", path=str(BIN)):
        servers["gunicorn gthread"] = [
            str(BIN / "gunicorn"), "-k", "gthread", "-w", "1", "--threads", str(threads),
            "--keep-alive", str(timeout), "-b", f"127.0.0.1:{port}", "app:application",
        ]  # fmt: skip
    if shutil.which("uwsgi", path=str(BIN)):
        common = [
            "--wsgi-file", str(app_dir / "app.py"), "--master", "--processes", "1",
            "--threads", str(threads), "--socket-timeout", str(timeout), "--die-on-term",
        ]  # fmt: skip
        servers["uwsgi http-socket"] = [
            str(BIN / "uwsgi"),
            "--http-socket",
            f"127.0.0.1:{port}",
            *common,
        ]
        servers["uwsgi http router"] = [
            str(BIN / "uwsgi"), "--http", f"127.0.0.1:{port}",
            "--http-timeout", str(timeout), *common,
        ]  # fmt: skip
    if (
        subprocess.run(
            [python, "-c", "import waitress"], check=False, capture_output=True
        ).returncode
        == 0
    ):
        servers["waitress"] = [
            python, "-m", "waitress", f"--listen=127.0.0.1:{port}", f"--threads={threads}",
            f"--channel-timeout={timeout}", f"--cleanup-interval={max(1, timeout // 2)}",
            "--connection-limit=1000", "app:application",
        ]  # fmt: skip
    return servers


def compare(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        app_dir = Path(tmp)
        (app_dir / "app.py").write_text(TRIVIAL_APP, encoding="utf-8")
        print(f"trivial WSGI app, {args.threads} threads, timeout {args.timeout} s:")
        for name in ("gunicorn gthread", "uwsgi http-socket", "uwsgi http router", "waitress"):
            port = free_port()
            command = compared_servers(
                args.servers_bin, app_dir, port, args.threads, args.timeout
            ).get(name)
            if command is None:
                print(f"  {name}: not installed")
                continue
            server = subprocess.Popen(
                command, cwd=app_dir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            try:
                wait_listening(port)
                result = slowloris(port, "/", args.half_sent, args.probes, args.wait)
                print(f"  {name}: {result}")
            finally:
                server.terminate()
                server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half-sent", type=int, default=300)
    parser.add_argument("--probes", type=int, default=20)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--timeout", type=int, default=2)
    parser.add_argument("--wait", type=float, default=30.0, help="longest wait for anything")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--compare", action="store_true")
    parser.add_argument(
        "--servers-bin", type=Path, default=BIN, help="bin directory of the compared servers"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        process, port = start_thermik_api(Path(tmp), args.threads, args.timeout)
        try:
            path = "/v1/bench/stacks"
            print(f"thermik-api, threads {args.threads}, client_socket_timeout {args.timeout} s:")
            for clients in (1, args.clients):
                rate = throughput(port, path, clients, args.seconds)
                print(f"  stack list, {clients} client(s): {rate:.0f} requests/s")
            result = slowloris(port, path, args.half_sent, args.probes, args.wait)
            print(f"  {args.half_sent} half-sent: {result}")
        finally:
            process.terminate()
            process.wait(timeout=60)
    if args.compare:
        compare(args)


if __name__ == "__main__":
    main()
