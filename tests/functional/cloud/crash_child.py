"""An engine process on the loopback cloud that the crash tests kill with SIGKILL.

    python -m tests.functional.cloud.crash_child STATE_DIR create TEMPLATE_FILE [CRASH_AFTER]
    python -m tests.functional.cloud.crash_child STATE_DIR resume
    python -m tests.functional.cloud.crash_child STATE_DIR delete

``create`` starts stack ``crashy`` in local mode (the embedded database under ``STATE_DIR``,
the demo user of the loopback cloud), prints ``CREATE started <stack id>`` and waits for it.
``resume`` starts an engine on the same database, which takes over the dead engine's stack once
its lease expired and finishes the operation; ``delete`` deletes the stack. ``CRASH_AFTER``
(``N``) makes the creating engine kill itself (SIGKILL) as the answer to its ``N``-th create
request (POST) reaches it: the cloud made the resource, the database never learns its id.
``resume`` and ``delete`` print the stack's final ``RESULT: <action> <status> <reason>``.
Leases are short, so a takeover takes seconds.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
import time
from pathlib import Path

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CTX, CloudEngine
from thermik.api.boundary import StackIdentity
from thermik.clients.counting import CallCounter
from thermik.conf.settings import EngineSettings

NAME = "crashy"
#: A dead engine's lease expires after this many seconds.
LEASE_SECONDS = 2
WAIT = 300.0
#: The line that says how the operation ended starts with this.
RESULT = "RESULT: "


def fast_takeover(engine: EngineSettings) -> EngineSettings:
    """Engine settings under which a dead engine's stacks are taken over within seconds."""
    return dataclasses.replace(engine, lease_seconds=LEASE_SECONDS, heartbeat_interval=1)


def settle(engine: CloudEngine, stack: StackIdentity) -> str:
    """Wait until the stack's operation is over; its ``action status reason``."""
    deadline = time.monotonic() + WAIT
    while True:
        view = engine.service.show_stack(CTX, stack)
        if view.status != "IN_PROGRESS" or time.monotonic() > deadline:
            return f"{view.action} {view.status} {view.status_reason}"
        time.sleep(0.5)


class CrashingCounter(CallCounter):
    """Counts the cloud requests, and kills the process when the ``nth`` POST is answered."""

    def __init__(self, nth: int) -> None:
        super().__init__()
        self._left = nth

    def record(self, service: str, method: str) -> None:
        super().record(service, method)
        if method == "POST" and service != "identity":
            self._left -= 1
            if self._left == 0:
                os.kill(os.getpid(), signal.SIGKILL)


def main(
    state_dir: str,
    command: str,
    template_file: str | None = None,
    crash_after: str | None = None,
) -> None:
    engine = CloudEngine(Path(state_dir), CloudEnv.from_settings(), tune=fast_takeover)
    if crash_after is not None:
        assert engine.engine.cloud is not None
        # Before the first connection exists: every connection is watched by this counter.
        engine.engine.cloud.pool.counter = CrashingCounter(int(crash_after))
    try:
        if command == "create":
            assert template_file is not None
            stack = engine.create(NAME, Path(template_file).read_text())
            print(f"CREATE started {stack.id}", flush=True)
        else:
            stack = engine.service.identify_stack(CTX, NAME)
            if command == "delete":
                engine.service.delete_stack(CTX, stack)
        print(f"{RESULT}{settle(engine, stack)}", flush=True)
    finally:
        engine.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
