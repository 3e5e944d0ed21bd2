"""The local engine daemon: one long-lived engine per state directory, for the ``thermik`` CLI.

    python -m thermik.cmd.local_engine [--config-file F ...] [--os-cloud NAME]

The first ``thermik`` command that needs the engine starts it detached
(:mod:`thermik.cmd.daemon`); it logs to ``engine.log`` under the state directory. It takes the
state directory's lock (one daemon per directory), starts the engine (which resumes the
interrupted stacks and takes their leases), serves Heat's v1 REST API on a loopback port to
callers presenting its random token (:mod:`thermik.api.owner`), and the builtin delivery URLs,
and records its address and token in ``engine.json`` (:mod:`thermik.clients.local_daemon`).
It stays up while it has something to do (see :func:`reasons_to_stay`) and exits after
``[engine] local_daemon_idle_timeout`` seconds without, or on ``thermik engine stop`` or
SIGTERM: it stops its actors cleanly, so what they recorded stays and the next daemon
resumes it.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oslo_config import cfg

from thermik.clients import local_daemon as local
from thermik.cmd.stop_signals import stop_on_signals
from thermik.conf import settings as config
from thermik.errors import ThermikError
from thermik.persistence.values import StackQuery

if TYPE_CHECKING:
    from thermik.api.auth import WsgiApp
    from thermik.api.boundary import OrchestrationService
    from thermik.api.wsgi_server import ThreadingWSGIServer
    from thermik.persistence.store import Store
    from thermik.service import Engine

LOG = logging.getLogger("thermik.local_engine")

#: Under the state directory: held by the running daemon (one per directory), its log.
LOCK_FILE = "engine.lock"
LOG_FILE = "engine.log"
#: Resource types whose servers or handles fetch or signal builtin delivery URLs: while a
#: stack holds one, the daemon stays up to answer them.
SERVED_TYPES = frozenset(
    {
        "OS::Heat::DeployedServer",
        "OS::Nova::Server",
        "OS::Heat::SoftwareDeployment",
        "OS::Heat::StructuredDeployment",
        "OS::Heat::SoftwareDeployments",
        "OS::Heat::StructuredDeployments",
        "OS::Heat::SoftwareDeploymentGroup",
        "OS::Heat::StructuredDeploymentGroup",
        "OS::Heat::WaitConditionHandle",
        "OS::Heat::UpdateWaitConditionHandle",
        "AWS::CloudFormation::WaitConditionHandle",
    }
)
#: How often, at most, the daemon looks whether it still has something to do.
CHECK_INTERVAL = 2.0


def reasons_to_stay(store: Store, delivery_backend: str) -> list[str]:
    """What keeps the daemon up: stacks in progress, and live stacks holding a server or
    handle that reaches the builtin delivery URLs it serves (empty: nothing)."""
    reasons = []
    busy = store.count_stacks(
        StackQuery(tenant=None, filters={"status": ["IN_PROGRESS"]}, show_nested=True)
    )
    if busy:
        reasons.append(f"{busy} stack(s) in progress")
    if delivery_backend == "builtin":
        serving = [
            stack.name
            for stack in store.list_stacks(StackQuery(tenant=None, show_nested=True))
            if any(row.resource_type in SERVED_TYPES for row in store.list_resources(stack.id))
        ]
        if serving:
            reasons.append(f"builtin URLs of {len(serving)} stack(s) to serve")
    return reasons


class Daemon:
    """A running daemon: the engine and the idle clock."""

    def __init__(
        self, settings: config.Settings, engine: Engine, stopping: threading.Event
    ) -> None:
        self.settings = settings
        self.engine = engine
        self.stopping = stopping
        self.started = time.time()
        self._last_activity = time.monotonic()

    def touch(self) -> None:
        """A command called: the idle period starts again."""
        self._last_activity = time.monotonic()

    def reasons(self) -> list[str]:
        """See :func:`reasons_to_stay`."""
        return reasons_to_stay(self.engine.store, self.settings.delivery.backend)

    def ping(self) -> dict[str, Any]:
        """Who the daemon is and what keeps it up (``thermik engine status``)."""
        try:
            reasons = self.reasons()
        except ThermikError as exc:
            reasons = [f"(cannot tell: {exc})"]
        return {
            "pid": os.getpid(),
            "engine_id": self.engine.runtime.engine_id,
            "cloud": self.settings.clients.cloud,
            "started_at": self.started,
            "idle_timeout": self.settings.engine.local_daemon_idle_timeout,
            "busy": reasons,
        }

    def stop(self) -> dict[str, Any]:
        """Ask the daemon to exit (it answers first)."""
        LOG.info("Stop requested by a command")
        self.stopping.set()
        return {"stopping": True}

    def run(self) -> None:
        """Wait until stopped or idle for the idle timeout."""
        timeout = float(self.settings.engine.local_daemon_idle_timeout)
        check = min(CHECK_INTERVAL, timeout / 2)
        while not self.stopping.wait(check):
            try:
                busy = bool(self.reasons())
            except ThermikError as exc:
                LOG.warning("cannot tell whether there is work: %s", exc)
                busy = True
            if busy:
                self.touch()
            elif time.monotonic() - self._last_activity >= timeout:
                LOG.info("Nothing to do for %g s: exiting", timeout)
                return


@contextlib.contextmanager
def state_lock(state_dir: Path) -> Iterator[bool]:
    """Hold the state directory's daemon lock for the block; yields False when another
    daemon holds it (the lock is the kernel's: a killed daemon's goes with it)."""
    state_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(state_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def setup_logging(state_dir: Path) -> None:
    """Log to ``engine.log`` under the state directory (stderr goes there too)."""
    handler = logging.FileHandler(state_dir / LOG_FILE)
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s %(message)s")
    )
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def serve(settings: config.Settings, stopping: threading.Event) -> int:
    """Run the daemon of ``settings``' state directory until it is idle or ``stopping`` is
    set; the exit status."""
    from thermik.service import orchestrator_for, start_engine  # noqa: PLC0415 - slow

    state_dir = Path(settings.state_dir)
    with state_lock(state_dir) as held:
        if not held:
            LOG.info("Another engine daemon runs on %s: leaving it", state_dir)
            return 0
        engine = start_engine(settings)
        service = orchestrator_for(engine, settings)
        daemon = Daemon(settings, engine, stopping)
        token = local.new_token()
        server = api_server(service, settings, token, daemon)
        address_file = state_dir / local.ENGINE_FILE
        address = None
        try:
            url = f"http://127.0.0.1:{server.server_address[1]}"
            address = local.EngineAddress(
                os.getpid(), url, token, engine.runtime.engine_id, settings.clients.cloud
            )
            address.write(address_file)
            LOG.info("Engine daemon %s serving the API on %s", engine.runtime.engine_id, url)
            daemon.run()
        finally:
            if address is not None and local.EngineAddress.read(address_file) == address:
                address_file.unlink(missing_ok=True)
            server.shutdown()
            server.server_close()
            service.close()
            LOG.info("Engine daemon stopped")
    return 0


def api_server(
    service: OrchestrationService, settings: config.Settings, token: str, daemon: Daemon
) -> ThreadingWSGIServer:
    """The REST API over ``service`` for callers presenting ``token``, with the daemon's own
    methods beside it, served (started) on a free loopback port."""
    # The API is loaded here, not with the module: every thermik command loads this module
    # (for its file names), and only the daemon serves the API.
    from thermik.api import owner  # noqa: PLC0415
    from thermik.api.app import build_app  # noqa: PLC0415
    from thermik.api.wsgi_server import make_server  # noqa: PLC0415

    api = build_app(service, owner.OwnerContext(token), settings.limits)
    methods = {local.PING: daemon.ping, local.STOP: daemon.stop}
    app = owner.with_management(touching(api, daemon.touch), token, methods)
    server = make_server(app, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, name="daemon-api", daemon=True).start()
    return server


def touching(app: WsgiApp, touch: Callable[[], None]) -> WsgiApp:
    """``app``, calling ``touch`` first on every request: a command's call is activity."""

    def touched(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        touch()
        return app(environ, start_response)

    return touched


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """The daemon's arguments (what the command that starts it passes on)."""
    parser = argparse.ArgumentParser(prog="thermik-local-engine", description=__doc__)
    parser.add_argument("--config-file", action="append", default=[])
    parser.add_argument("--os-cloud", default=None)
    return parser.parse_args(list(argv))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the daemon process."""
    from thermik.cmd.cli import with_cloud  # noqa: PLC0415 - the CLI's rules for --os-cloud

    args = parse(sys.argv[1:] if argv is None else argv)
    try:
        settings = with_cloud(
            config.load([], config_files=args.config_file), args.os_cloud, os.environ
        )
    except (cfg.Error, ThermikError) as exc:
        print(f"thermik engine daemon: {exc}", file=sys.stderr)
        return 1
    state_dir = Path(settings.state_dir)
    state_dir.mkdir(parents=True, exist_ok=True)
    setup_logging(state_dir)

    stopping = stop_on_signals(LOG)
    try:
        return serve(settings, stopping)
    except ThermikError as exc:
        LOG.error("Engine daemon not started: %s", exc)
        return 1


if __name__ == "__main__":
    sys.exit(main())
