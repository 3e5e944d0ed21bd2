"""The orchestration service: the engine behind the REST API and the local CLI.

:class:`Orchestrator` implements :class:`thermik.api.boundary.OrchestrationService` over the
Store, the template layer, the resource Registry and the actor runtime; each concern lives in
its own module and is mixed in here. The composition root (:mod:`thermik.service`) builds it.
"""

from __future__ import annotations

from thermik.orchestration.actions import ActionOperations
from thermik.orchestration.catalog import CatalogOperations
from thermik.orchestration.documents import DocumentOperations
from thermik.orchestration.events import EventOperations
from thermik.orchestration.resources import ResourceOperations
from thermik.orchestration.snapshots import SnapshotOperations
from thermik.orchestration.software import SoftwareOperations
from thermik.orchestration.stacks import StackOperations
from thermik.orchestration.updates import UpdateOperations


class Orchestrator(
    StackOperations,
    UpdateOperations,
    DocumentOperations,
    ActionOperations,
    SnapshotOperations,
    ResourceOperations,
    EventOperations,
    CatalogOperations,
    SoftwareOperations,
):
    """Everything the REST API and the CLI ask of the engine; see the module docstring."""

    def close(self) -> None:
        """Stop the runtime, then release the database (idempotent)."""
        try:
            self.runtime.stop()
        finally:
            self.store.close()
