"""The local agent of the software deployment demo: the real os-collect-config, started once
the demo's DeployedServer publishes where its metadata is served.

``thermik demo --agent COMMAND`` runs ``COMMAND METADATA_URL`` in its own process group (the
agent runs os-refresh-config and hooks as children) as soon as the server resource has its
``os_collect_config`` attribute, logs it to a file, and ends the whole group when the demo
ends. ``tools/demo.sh`` passes ``tools/agent-run.sh --sandbox DIR --poll 2``.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

from thermik.api.boundary import OrchestrationService, RequestContext, StackIdentity
from thermik.errors import ThermikError

#: The demo resource whose metadata the agent polls.
SERVER = "server"
#: How often the server resource is looked at until its agent configuration is there.
LOOK_EVERY = 0.2


class DemoAgent:
    """Starts the agent for the demo stack's server, in a background thread."""

    def __init__(
        self,
        command: str,
        log: Path,
        service: OrchestrationService,
        ctx: RequestContext,
        stack: StackIdentity,
    ) -> None:
        self.command = shlex.split(command)
        self.log = log
        self._service = service
        self._ctx = ctx
        self._stack = stack
        self._stop = threading.Event()
        self._process: subprocess.Popen[bytes] | None = None
        self._thread = threading.Thread(target=self._run, name="thermik-demo-agent", daemon=True)
        #: The URL the agent polls, once known.
        self.metadata_url: str | None = None

    def _metadata_url(self) -> str | None:
        try:
            view = self._service.show_resource(self._ctx, self._stack, SERVER)
        except ThermikError:
            return None
        occ = (view.attributes or {}).get("os_collect_config")
        request = occ.get("request") if isinstance(occ, dict) else None
        url = request.get("metadata_url") if isinstance(request, dict) else None
        return url if isinstance(url, str) else None

    def _run(self) -> None:
        while not self._stop.is_set():
            url = self._metadata_url()
            if url is not None:
                self.metadata_url = url
                self._start(url)
                return
            self._stop.wait(LOOK_EVERY)

    def _start(self, url: str) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as out:
            self._process = subprocess.Popen(
                [*self.command, url],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )

    def stop(self) -> None:
        """End the agent and everything it started."""
        self._stop.set()
        self._thread.join()
        process = self._process
        if process is None or process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()

    @contextlib.contextmanager
    def running(self) -> Iterator[DemoAgent]:
        """The agent runs (once the server is there) until the block ends."""
        self._thread.start()
        try:
            yield self
        finally:
            self.stop()
