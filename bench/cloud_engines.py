"""The two orchestration engines bench/cloud_bench.py drives on the loopback cloud.

* :class:`RealHeat`: real Heat of ``tools/heat-up.sh``, through its REST API (python-heatclient,
  polling the stack every ``poll`` seconds as a waiting client does). Its engine CPU is
  heat-engine's process group (/proc); its own requests come from keystoneauth's debug lines
  when it runs with ``THERMIK_HEAT_LOG_REQUESTS=1`` (or ``THERMIK_HEAT_DEBUG=1``).
* :class:`InProcessThermik`: Thermik's engine in this process, in local mode: it acts as the
  ``clouds.yaml`` cloud (the demo user), with its embedded database in a scratch directory.
  Its engine CPU is this process's CPU time over the operation: the engine's threads, and the
  main thread's part of an API's work (the stack's validation and first write), after which it
  only waits. Its own requests are its :class:`~thermik.clients.pool.ClientPool`'s counter.

Both answer the same questions (:class:`Engine`), so the bench measures them alike.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import tempfile
import time
from pathlib import Path
from typing import Any, Protocol

from cloud_meter import group_cpu, keystoneauth_requests, size


@dataclasses.dataclass
class Outcome:
    """How an operation ended: its final status and reason, the stack's handle."""

    ok: bool
    status: str
    reason: str = ""
    handle: Any = None


class Engine(Protocol):
    """An orchestration engine as the bench measures it."""

    name: str

    def cpu(self) -> float:
        """Its CPU seconds so far (cumulative)."""
        ...

    def own_requests(self) -> dict[str, int] | None:
        """The cloud requests it sent so far, by service (cumulative); None: not known."""
        ...

    def create(self, name: str, template: dict[str, Any], timeout: float) -> Outcome:
        """Create the stack and wait until it settles."""
        ...

    def delete(self, handle: Any, timeout: float) -> Outcome:
        """Delete the stack and wait until it is gone."""
        ...

    def event_span(self, handle: Any) -> float | None:
        """Seconds from its first to its last event."""
        ...


def _span(times: list[datetime.datetime]) -> float | None:
    return (max(times) - min(times)).total_seconds() if times else None


class RealHeat:
    """Real Heat on the loopback cloud (``.state/heat.env`` of ``tools/heat-up.sh``)."""

    name = "Heat 27"

    def __init__(
        self,
        env: dict[str, str],
        session: Any,
        project_id: str,
        services: dict[str, str],
        poll: float,
    ) -> None:
        from heatclient import client as heat_client

        self.env = env
        self.poll = poll
        self.heat = heat_client.Client(
            "1", session=session, endpoint_override=f"{env['THERMIK_HEAT_URL']}/{project_id}"
        )
        self.engine_pgid = int(env["THERMIK_HEAT_ENGINE_PID"])
        self.api_pgid = int(env["THERMIK_HEAT_API_PID"])
        self.debug = "1" in (env.get("THERMIK_HEAT_LOG_REQUESTS"), env.get("THERMIK_HEAT_DEBUG"))
        self.log = Path(env["THERMIK_HEAT_ENGINE_LOG"])
        self.log_start = size(self.log)
        self.services = services

    def cpu(self) -> float:
        return group_cpu(self.engine_pgid)

    def api_cpu(self) -> float:
        """heat-api's CPU seconds so far (it answers the bench's polls)."""
        return group_cpu(self.api_pgid)

    def own_requests(self) -> dict[str, int] | None:
        if not self.debug:
            return None
        return keystoneauth_requests(self.log, self.log_start, self.services)

    def _wait(self, stack_id: str, action: str, timeout: float) -> Outcome:
        from heatclient import exc

        deadline = time.monotonic() + timeout
        while True:
            try:
                stack = self.heat.stacks.get(stack_id)
            except exc.HTTPNotFound:
                return Outcome(True, f"{action}_COMPLETE", handle=stack_id)
            status = str(stack.stack_status)
            if not status.endswith("_IN_PROGRESS"):
                ok = status == f"{action}_COMPLETE"
                return Outcome(ok, status, str(stack.stack_status_reason), stack_id)
            if time.monotonic() > deadline:
                return Outcome(False, status, f"not settled after {timeout:.0f} s", stack_id)
            time.sleep(self.poll)

    def create(self, name: str, template: dict[str, Any], timeout: float) -> Outcome:
        made = self.heat.stacks.create(stack_name=name, template=template, disable_rollback=True)
        return self._wait(made["stack"]["id"], "CREATE", timeout)

    def delete(self, handle: Any, timeout: float) -> Outcome:
        self.heat.stacks.delete(handle)
        return self._wait(handle, "DELETE", timeout)

    def event_span(self, handle: Any) -> float | None:
        events = self.heat.events.list(handle)
        return _span([_heat_time(e.event_time) for e in events])


def _heat_time(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


class InProcessThermik:
    """Thermik's engine in this process, acting as ``cloud`` of ``config_file``."""

    name = "Thermik"

    def __init__(
        self, cloud: str, config_file: str, poll: float, client_timeout: int | None = None
    ) -> None:
        from thermik.api.boundary import RequestContext
        from thermik.conf.settings import Settings
        from thermik.service import orchestrator_for, start_engine

        self.poll = poll
        self._scratch = tempfile.TemporaryDirectory(prefix="cloud-bench-")
        settings = Settings.embedded(Path(self._scratch.name))
        # Local mode, as ``thermik --os-cloud CLOUD`` runs: [DEFAULT] cloud and its clouds.yaml.
        clients = dataclasses.replace(settings.clients, cloud=cloud, cloud_config_file=config_file)
        if client_timeout is not None:  # [clients] timeout
            defaults = dataclasses.replace(clients.defaults, timeout=client_timeout)
            clients = dataclasses.replace(clients, defaults=defaults)
        settings = dataclasses.replace(settings, clients=clients)
        self.engine = start_engine(settings)
        assert self.engine.cloud is not None
        self.pool = self.engine.cloud.pool
        self.registry = self.engine.registry
        self.service = orchestrator_for(self.engine, settings)
        self.ctx = RequestContext(tenant="bench", user="bench")

    def missing_types(self, types: set[str]) -> list[str]:
        """The resource types of ``types`` this engine has no plugin for."""
        return sorted(t for t in types if t not in self.registry)

    def cpu(self) -> float:
        # The whole process: the main thread runs what an API would (validation, storing the
        # stack), then only waits; nothing else runs here while an operation is measured.
        return time.process_time()

    def own_requests(self) -> dict[str, int] | None:
        out: dict[str, int] = {}
        for (service, _method), n in self.pool.counter.snapshot().items():
            out[service] = out.get(service, 0) + n
        return out

    def create(self, name: str, template: dict[str, Any], timeout: float) -> Outcome:
        from thermik.api.boundary import StackRequest

        identity = self.service.create_stack(
            self.ctx, StackRequest(name=name, template=template, disable_rollback=True)
        )
        return self._wait(identity, "CREATE", timeout)

    def _wait(self, identity: Any, action: str, timeout: float) -> Outcome:
        state = self.service.runtime.wait(identity.id, timeout)
        view = self.service.show_stack(self.ctx, identity, resolve_outputs=False)
        ok = str(state) == f"{action}_COMPLETE"
        return Outcome(ok, str(state), view.status_reason, identity)

    def delete(self, handle: Any, timeout: float) -> Outcome:
        self.service.delete_stack(self.ctx, handle)
        return self._wait(handle, "DELETE", timeout)

    def event_span(self, handle: Any) -> float | None:
        from thermik.api.boundary import EventQuery

        events = self.service.list_events(self.ctx, handle, EventQuery())
        return _span([e.event_time for e in events if e.event_time is not None])

    def close(self) -> None:
        """Stop the engine and drop its scratch database."""
        try:
            self.service.close()
        finally:
            self._scratch.cleanup()


def heat_env(path: Path) -> dict[str, str]:
    """The variables of ``tools/heat-up.sh``'s env file (``export NAME=value`` lines)."""
    env = {}
    for line in path.read_text().splitlines():
        if line.startswith("export ") and "=" in line:
            name, value = line.removeprefix("export ").split("=", 1)
            env[name] = value
    return env


def cloud_env() -> dict[str, str]:
    """The loopback cloud's variables (``THERMIK_CLOUD_*``) from the environment."""
    wanted = ("THERMIK_CLOUD_CONFIG", "THERMIK_CLOUD", "THERMIK_CLOUD_ADMIN")
    missing = [name for name in wanted if not os.environ.get(name)]
    if missing:
        raise SystemExit(
            f"{', '.join(missing)} not set: source the cloud's env file first "
            "(set -a; . .state/cloud.env; set +a)"
        )
    return {k: v for k, v in os.environ.items() if k.startswith("THERMIK_CLOUD")}
