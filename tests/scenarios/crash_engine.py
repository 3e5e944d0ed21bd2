"""An engine process for the crash-recovery tests: a stack created, updated and deleted.

    python -m tests.scenarios.crash_engine DATABASE_URL CREATE_JSON UPDATE_TEMPLATE_ID [FLAG...]

It creates the stack ``crashy`` of tenant ``tenant`` through the orchestration service (as the
API does) from ``CREATE_JSON`` (``{"template": ..., "files": ...}``), then updates it to the
stored template ``UPDATE_TEMPLATE_ID`` and deletes it, one after the other, printing each
start. The test kills it (SIGKILL) at a random moment (:func:`run_and_kill`), or the engine
kills itself at a crash point (:func:`run_to_crash`). Flags: ``nested`` gives the engine the
nested-stack services; ``crash-after=METHOD:N`` sends the engine SIGKILL right after the
``N``-th call of the store's ``METHOD`` returned (``create_stack:1``: right after the stack
row is written; ``create_stack:2``: after the first child stack's).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, cast

from tests.scenarios.runtime_harness import KEY, REGISTRY, start_runtime
from thermik.actors.runtime import ConvergeRequest
from thermik.api.boundary import RequestContext, StackRequest
from thermik.conf.settings import DatabaseSettings, EngineSettings, LimitSettings
from thermik.engine.states import Action
from thermik.orchestration import Orchestrator
from thermik.persistence.factory import open_store
from thermik.persistence.store import Store
from thermik.persistence.values import StackQuery

#: Leases expire quickly, so a fresh engine takes over a killed one's stacks within seconds.
CRASH_SETTINGS = EngineSettings(
    max_concurrent_resources=4,
    executor_workers=4,
    cancel_grace_period=1,
    lease_seconds=1,
    heartbeat_interval=1,
)
#: The stack the engine creates.
NAME, TENANT = "crashy", "tenant"
#: What the engine prints once the service acknowledged the create.
ACKNOWLEDGED = "CREATE started"

ROOT = Path(__file__).resolve().parents[2]


def start_engine(
    url: str, create: Mapping[str, Any], update_template: int, *flags: str
) -> subprocess.Popen[bytes]:
    """Start the engine process (its output piped)."""
    return subprocess.Popen(
        [sys.executable, "-m", __name__, url, json.dumps(create), str(update_template), *flags],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def _said(output: bytes) -> str:
    return output.decode(errors="replace").strip().replace("\n", "; ")


def run_and_kill(
    url: str, create: Mapping[str, Any], update_template: int, delay: float, *flags: str
) -> str:
    """Start the engine process, SIGKILL it ``delay`` seconds after it is ready; what it had
    printed by then (how far it got), on one line."""
    engine = start_engine(url, create, update_template, *flags)
    assert engine.stdout is not None
    ready = engine.stdout.readline()
    assert ready.startswith(b"ready"), ready
    time.sleep(delay)
    engine.send_signal(signal.SIGKILL)
    output, _ = engine.communicate()
    return _said(output)


def run_to_crash(
    url: str, create: Mapping[str, Any], update_template: int, crash_after: str, *flags: str
) -> str:
    """Run the engine process until it kills itself right after ``crash_after``
    (``METHOD:N``); what it printed, on one line (fails if it did not die by SIGKILL)."""
    engine = start_engine(url, create, update_template, f"crash-after={crash_after}", *flags)
    output, _ = engine.communicate(timeout=120)
    said = _said(output)
    assert engine.returncode == -signal.SIGKILL, f"exit {engine.returncode}: {said}"
    return said


def created_stack(store: Store, progress: str) -> str | None:
    """The id of the stack the killed engine created; ``None`` if it stored none, which only
    a create never acknowledged may do."""
    query = StackQuery(tenant=TENANT, show_deleted=True, limit=None)
    found = [stack.id for stack in store.list_stacks(query) if stack.name == NAME]
    if not found:
        assert ACKNOWLEDGED not in progress, f"an acknowledged create left no stack: {progress}"
        return None
    return found[0]


class CrashPoint:
    """The engine's store, which kills the process right after the ``nth`` call of ``method``
    returned (what that call wrote is committed, nothing after it is)."""

    def __init__(self, store: Store, method: str, nth: int) -> None:
        self._store = store
        self._method = method
        self._left = nth
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._store, name)
        if name != self._method:
            return found
        return self._counted(found)

    def _counted(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            result = method(*args, **kwargs)
            with self._lock:
                self._left -= 1
                if self._left == 0:
                    os.kill(os.getpid(), signal.SIGKILL)
            return result

        return call


def _store(url: str, flags: list[str]) -> Store:
    store = open_store(DatabaseSettings(url, busy_timeout=10), KEY)
    for flag in flags:
        if flag.startswith("crash-after="):
            method, nth = flag.removeprefix("crash-after=").split(":")
            return cast("Store", CrashPoint(store, method, int(nth)))
    return store


def main(argv: list[str]) -> None:
    url, create, update_template, *flags = argv
    store = _store(url, flags)
    runtime = start_runtime(
        store, seed=None, nested="nested" in flags, fallback_poll=2.0, settings=CRASH_SETTINGS
    )
    service = Orchestrator(store, REGISTRY, runtime, LimitSettings())
    print("ready", flush=True)
    document = json.loads(create)
    request = StackRequest(
        name=NAME,
        template=document["template"],
        files=document.get("files", {}),
        disable_rollback=False,
    )
    stack_id = service.create_stack(RequestContext(TENANT, user="crash"), request).id
    print(ACKNOWLEDGED, flush=True)
    print(Action.CREATE.value, runtime.wait(stack_id, 60), flush=True)
    for operation, template_id in ((Action.UPDATE, int(update_template)), (Action.DELETE, None)):
        runtime.converge(ConvergeRequest(stack_id, operation, template_id=template_id))
        print(operation.value, "started", flush=True)
        print(operation.value, runtime.wait(stack_id, 60), flush=True)
    runtime.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
