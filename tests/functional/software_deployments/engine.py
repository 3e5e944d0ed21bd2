"""A whole Thermik engine for the deployment tests: Store, runtime, delivery, service.

It is the composition root's own engine (:func:`thermik.service.start_engine`) on an embedded
SQLite database under the test's directory, with a chosen delivery backend and policy.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

from thermik.api.boundary import (
    EventQuery,
    EventView,
    RequestContext,
    StackIdentity,
    StackRequest,
    StackUpdate,
    StackView,
)
from thermik.conf.settings import DeliverySettings, Settings, SwiftSettings, ZaqarSettings
from thermik.delivery.base import DeliveryBackend
from thermik.delivery.metadata_writer import DeliveryPolicy
from thermik.orchestration import Orchestrator
from thermik.service import Engine, orchestrator_for, start_engine
from thermik.template.loader import load_document

CTX = RequestContext(tenant="tenant", user="tester", is_admin=True)
#: Longest wait for a stack operation with a real agent in the loop.
WAIT = 180.0


class EngineUnderTest:
    """One engine process's worth of Thermik, driven like a user would."""

    def __init__(
        self,
        root: Path,
        *,
        backend: DeliveryBackend | None = None,
        policy: DeliveryPolicy | None = None,
        delivery: DeliverySettings | None = None,
        swift: SwiftSettings | None = None,
        zaqar: ZaqarSettings | None = None,
    ) -> None:
        settings = Settings.embedded(root / "state")
        if delivery is not None:
            settings = dataclasses.replace(settings, delivery=delivery)
        if swift is not None:
            settings = dataclasses.replace(settings, swift=swift)
        if zaqar is not None:
            settings = dataclasses.replace(settings, zaqar=zaqar)
        self.engine: Engine = start_engine(settings, backend=backend, policy=policy)
        self.service: Orchestrator = orchestrator_for(self.engine, settings)

    def create(self, name: str, template: str, **parameters: Any) -> StackIdentity:
        request = StackRequest(name=name, template=load_document(template), parameters=parameters)
        return self.service.create_stack(CTX, request)

    def update(self, stack: StackIdentity, **parameters: Any) -> None:
        request = StackRequest(parameters=parameters)
        self.service.update_stack(CTX, stack, StackUpdate(request, existing=True))

    def wait(self, stack: StackIdentity, timeout: float = WAIT) -> StackView:
        self.service.runtime.wait(stack.id, timeout)
        return self.service.show_stack(CTX, stack)

    def metadata_url(self, stack: StackIdentity, server: str = "server") -> str:
        """The URL the server's agent polls, once the server resource has it."""
        deadline = time.monotonic() + 60
        while True:
            view = self.service.show_resource(CTX, stack, server)
            occ = (view.attributes or {}).get("os_collect_config")
            if isinstance(occ, dict):
                url: str = occ["request"]["metadata_url"]
                return url
            assert view.status != "FAILED", view.status_reason
            assert time.monotonic() < deadline, "the server never got a metadata URL"
            time.sleep(0.05)

    def outputs(self, stack: StackIdentity) -> dict[str, Any]:
        view = self.service.show_stack(CTX, stack, resolve_outputs=True)
        return {output.key: output.value for output in view.outputs or ()}

    def events(self, stack: StackIdentity) -> list[EventView]:
        return list(self.service.list_events(CTX, stack, EventQuery()))

    def close(self) -> None:
        self.service.close()
