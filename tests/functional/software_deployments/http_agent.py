"""A stand-in agent in a thread, for tests about delivery rather than about the agent: it polls
the metadata URL, and signals success once for every deployment id it sees (by HTTP, like
heat-config-notify)."""

from __future__ import annotations

import contextlib
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any


class HttpAgent:
    """Polls ``metadata_url`` every ``interval`` seconds until stopped; signals
    ``status_code`` with the deployment's resource name as stdout."""

    def __init__(self, metadata_url: str, interval: float = 0.1, status_code: int = 0) -> None:
        self.metadata_url = metadata_url
        self.interval = interval
        self.status_code = status_code
        self.signalled: dict[str, str] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def document(self) -> dict[str, Any] | None:
        """The document served now (None when it cannot be read)."""
        return self._get()

    def _get(self) -> dict[str, Any] | None:
        try:
            with urllib.request.urlopen(self.metadata_url, timeout=10) as response:
                found: dict[str, Any] = json.loads(response.read())
                return found
        except (urllib.error.URLError, ValueError):
            return None

    def _signal(self, entry: dict[str, Any]) -> None:
        inputs = {i["name"]: i.get("value") for i in entry.get("inputs", ())}
        url = inputs.get("deploy_signal_id")
        if not isinstance(url, str):
            return
        stdout = inputs.get("deploy_resource_name", entry["name"])
        payload = {"deploy_status_code": self.status_code, "deploy_stdout": stdout}
        body = json.dumps(payload).encode()
        request = urllib.request.Request(url, data=body, method="PUT")
        with contextlib.suppress(urllib.error.URLError):
            urllib.request.urlopen(request, timeout=10).close()
            self.signalled[entry["id"]] = entry["name"]

    def _run(self) -> None:
        while not self._stop.is_set():
            document = self._get()
            for entry in (document or {}).get("deployments", ()):
                if entry["id"] not in self.signalled:
                    self._signal(entry)
            self._stop.wait(self.interval)

    @contextlib.contextmanager
    def running(self) -> Iterator[HttpAgent]:
        self._thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            self._thread.join()
