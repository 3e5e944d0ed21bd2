"""``thermik-api`` as a process, for the tests that need the real console script."""

from __future__ import annotations

import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

THERMIK_API = Path(sys.executable).with_name("thermik-api")
SERVING = re.compile(r"Serving the Heat v1 API on (http://\S+)/v1")


#: Run ``argv[2:]`` with at most ``argv[1]`` bytes of address space (same process, same pid).
LIMITED = (
    "import os, resource, sys; limit = int(sys.argv[1]); "
    "resource.setrlimit(resource.RLIMIT_AS, (limit, limit)); os.execv(sys.argv[2], sys.argv[2:])"
)


class ApiProcess:
    """``thermik-api --bind-port 0`` on a config file (its address space limited to
    ``memory_limit`` bytes if given); its log lines as they come."""

    def __init__(self, config: Path, *args: str, memory_limit: int | None = None) -> None:
        command = [str(THERMIK_API), "--config-file", str(config), "--bind-port", "0", *args]
        if memory_limit is not None:
            command = [sys.executable, "-c", LIMITED, str(memory_limit), *command]
        self.process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.log: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        serving = SERVING.search(self.wait_for(SERVING.pattern))
        assert serving is not None
        self.root = serving.group(1)

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.put(line)
        self.lines.put("")

    def wait_for(self, pattern: str, timeout: float = 30) -> str:
        """The first log line matching ``pattern`` (the test fails if none comes)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                raise AssertionError(f"no {pattern!r} in: {''.join(self.log)}") from None
            assert line, f"thermik-api exited: {''.join(self.log)}"
            self.log.append(line)
            if re.search(pattern, line):
                return line

    def rest_of_log(self) -> str:
        """Every log line so far, those not yet waited for included."""
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return "".join(self.log)
            self.log.append(line)

    def stop(self, signum: int) -> int:
        """Send ``signum``; the exit status."""
        self.process.send_signal(signum)
        return self.process.wait(timeout=30)

    def close(self) -> None:
        """Kill the process if it still runs; release its pipe."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self._reader.join(timeout=10)
        assert self.process.stderr is not None
        self.process.stderr.close()
