"""Whole-engine deployment runs for bench/delivery_bench.py ``--engine``.

A stack of one DeployedServer and N script deployments is created on an embedded engine with
the chosen backend; a stand-in agent thread polls the server's metadata URL and signals every
deployment it sees. Measured: seconds until CREATE_COMPLETE, metadata object writes, and
deployments missing from the document served at the end.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from thermik.api.boundary import RequestContext, StackRequest
from thermik.conf.settings import DeliverySettings, Settings, SwiftSettings
from thermik.delivery.base import DeliveryBackend
from thermik.service import orchestrator_for, start_engine
from thermik.template.loader import load_document

CTX = RequestContext(tenant="bench", user="bench", is_admin=True)


def template(count: int) -> dict[str, Any]:
    resources: dict[str, Any] = {
        "server": {"type": "OS::Heat::DeployedServer"},
        "config": {
            "type": "OS::Heat::SoftwareConfig",
            "properties": {"group": "script", "config": "true"},
        },
    }
    for n in range(count):
        resources[f"d{n:04}"] = {
            "type": "OS::Heat::SoftwareDeployment",
            "properties": {
                "name": f"d{n:04}",
                "server": {"get_resource": "server"},
                "config": {"get_resource": "config"},
                "signal_transport": "TEMP_URL_SIGNAL",
            },
        }
    text = json.dumps({"heat_template_version": "2018-08-31", "resources": resources})
    return load_document(text)


def _fetch(url: str) -> dict[str, Any]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            found: dict[str, Any] = json.loads(response.read())
            return found
    except (urllib.error.URLError, ValueError):
        return {}


def _agent(url: str, stop: threading.Event, seen: set[str]) -> None:
    """Poll ``url`` and PUT a success signal once per deployment id, until ``stop``."""
    while not stop.is_set():
        for entry in _fetch(url).get("deployments", ()):
            inputs = {i["name"]: i.get("value") for i in entry["inputs"]}
            if entry["id"] in seen or "deploy_signal_id" not in inputs:
                continue
            body = b'{"deploy_status_code": 0}'
            put = urllib.request.Request(inputs["deploy_signal_id"], data=body, method="PUT")
            with contextlib.suppress(urllib.error.URLError):
                urllib.request.urlopen(put, timeout=10).close()
                seen.add(entry["id"])
        stop.wait(0.1)


def _metadata_url(service: Any, stack: Any) -> str:
    while True:
        view = service.show_resource(CTX, stack, "server")
        occ = (view.attributes or {}).get("os_collect_config")
        if isinstance(occ, dict):
            return str(occ["request"]["metadata_url"])
        time.sleep(0.02)


@dataclasses.dataclass(frozen=True)
class EngineRound:
    """One whole-engine run."""

    seconds: float
    writes: int
    lost: int
    status: str


def engine_round(
    count: int,
    *,
    backend: DeliveryBackend | None = None,
    swift: SwiftSettings | None = None,
) -> EngineRound:
    """N deployments to one server through the whole engine; see the module docstring."""
    with tempfile.TemporaryDirectory() as root:
        settings = Settings.embedded(Path(root))
        if swift is not None:
            delivery = DeliverySettings(backend="swift")
            settings = dataclasses.replace(settings, delivery=delivery, swift=swift)
        engine = start_engine(settings, backend=backend)
        service = orchestrator_for(engine, settings)
        try:
            started = time.perf_counter()
            request = StackRequest(name="bench", template=template(count))
            stack = service.create_stack(CTX, request)
            stop, seen = threading.Event(), set[str]()
            agent = threading.Thread(
                target=_agent, args=(_metadata_url(service, stack), stop, seen)
            )
            agent.start()
            state = engine.runtime.wait(stack.id, 600)
            elapsed = time.perf_counter() - started
            stop.set()
            agent.join()
            served = _fetch(_metadata_url(service, stack)).get("deployments", ())
            writes = engine.deployments.writers.writes if engine.deployments else 0
            return EngineRound(elapsed, writes, count - len(served), str(state))
        finally:
            service.close()
