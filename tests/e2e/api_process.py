"""``thermik-api`` as a process, for the tests that need the real console script."""

from __future__ import annotations

import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

THERMIK_API = Path(sys.executable).with_name("thermik-api")
SERVING = re.compile(r"Serving the Heat v1 API on (http://\S+)/v1")


class ApiProcess:
    """``thermik-api --bind-port 0`` on a config file; its log lines as they come.

    ``popen`` options go to :class:`subprocess.Popen` (e.g. a ``preexec_fn`` capping memory).
    """

    def __init__(self, config: Path, *args: str, **popen: Any) -> None:
        self.process = subprocess.Popen(
            [str(THERMIK_API), "--config-file", str(config), "--bind-port", "0", *args],
            stderr=subprocess.PIPE,
            text=True,
            **popen,
        )
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
