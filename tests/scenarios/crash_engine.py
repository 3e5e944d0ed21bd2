"""An engine process for the crash-recovery test: converge a stack through a few operations.

    python -m tests.scenarios.crash_engine DATABASE_URL STACK_ID UPDATE_TEMPLATE_ID [nested]

It creates the stack, updates it and deletes it, one after the other, printing each start;
the test kills it (SIGKILL) at a random moment (:func:`run_and_kill`). With ``nested``, the
engine has the nested-stack services (the stack holds template resources).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.scenarios.runtime_harness import KEY, start_runtime
from thermik.actors.runtime import ConvergeRequest
from thermik.conf.settings import DatabaseSettings, EngineSettings
from thermik.engine.states import Action
from thermik.persistence.factory import open_store

#: Leases expire quickly, so a fresh engine takes over a killed one's stacks within seconds.
CRASH_SETTINGS = EngineSettings(
    max_concurrent_resources=4,
    executor_workers=4,
    cancel_grace_period=1,
    lease_seconds=1,
    heartbeat_interval=1,
)


ROOT = Path(__file__).resolve().parents[2]


def run_and_kill(url: str, stack_id: str, update_template: int, delay: float, *flags: str) -> str:
    """Start the engine process, SIGKILL it ``delay`` seconds after it is ready; what it had
    printed by then (how far it got), on one line."""
    engine = subprocess.Popen(
        [sys.executable, "-m", __name__, url, stack_id, str(update_template), *flags],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert engine.stdout is not None
    ready = engine.stdout.readline()
    assert ready.startswith(b"ready"), ready
    time.sleep(delay)
    engine.send_signal(signal.SIGKILL)
    output, _ = engine.communicate()
    return output.decode(errors="replace").strip().replace("\n", "; ")


def main(argv: list[str]) -> None:
    url, stack_id, update_template, *flags = argv
    store = open_store(DatabaseSettings(url, busy_timeout=10), KEY)
    runtime = start_runtime(
        store, seed=None, nested="nested" in flags, fallback_poll=2.0, settings=CRASH_SETTINGS
    )
    print("ready", flush=True)
    steps = ((Action.CREATE, None), (Action.UPDATE, int(update_template)), (Action.DELETE, None))
    for operation, template_id in steps:
        runtime.converge(ConvergeRequest(stack_id, operation, template_id=template_id))
        print(operation.value, "started", flush=True)
        print(operation.value, runtime.wait(stack_id, 60), flush=True)
    runtime.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
