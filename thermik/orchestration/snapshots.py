"""Stack snapshots: taking, listing, showing, deleting and restoring them.

A snapshot row is stored (CREATE_IN_PROGRESS) before the SNAPSHOT traversal starts and removed
again if the runtime refuses to start it; the runtime records its progress and data (hidden
parameters and redacted resource data encrypted). A restore converges the stack to the template
the snapshot recorded, and each converged resource's plugin gets back the data the snapshot kept
for it (``ResourcePlugin.restore``).
"""

from __future__ import annotations

from collections.abc import Sequence

from thermik.actors.runtime import ConvergeRequest
from thermik.api.boundary import RequestContext, SnapshotView, StackIdentity
from thermik.engine.states import Action
from thermik.errors import InvalidTransition, NotFound, ThermikError
from thermik.orchestration.actions import check_settled
from thermik.orchestration.base import Base
from thermik.orchestration.stored_templates import dropped_if_refused
from thermik.orchestration.views import snapshot_view
from thermik.persistence.software_values import Snapshot
from thermik.persistence.values import Stack
from thermik.template import Template
from thermik.template.parameters import parse_schemas


class SnapshotOperations(Base):
    """The snapshot entry points."""

    def _snapshot(self, ctx: RequestContext, stack: Stack, snapshot_id: str) -> Snapshot:
        try:
            snapshot = self.store.get_snapshot(snapshot_id, tenant=ctx.tenant)
        except NotFound:
            snapshot = None
        if snapshot is None or snapshot.stack_id != stack.id:
            raise NotFound(f"The Snapshot ({snapshot_id}) could not be found.")
        return snapshot

    def create_snapshot(
        self, ctx: RequestContext, stack: StackIdentity, name: str | None
    ) -> SnapshotView:
        row = self.find_stack(ctx, stack, live=True)
        check_settled(row)
        snapshot = self.store.create_snapshot(row.id, ctx.tenant, name)
        try:
            self.runtime.converge(
                ConvergeRequest(
                    stack_id=row.id,
                    operation=Action.SNAPSHOT,
                    expected_traversal=row.current_traversal,
                    snapshot_id=snapshot.id,
                )
            )
        except ThermikError:
            self.store.delete_snapshot(snapshot.id)
            raise
        return snapshot_view(self.store.get_snapshot(snapshot.id))

    def list_snapshots(self, ctx: RequestContext, stack: StackIdentity) -> Sequence[SnapshotView]:
        row = self.find_stack(ctx, stack)
        return [snapshot_view(s) for s in self.store.list_snapshots(row.id)]

    def show_snapshot(
        self, ctx: RequestContext, stack: StackIdentity, snapshot_id: str
    ) -> SnapshotView:
        row = self.find_stack(ctx, stack)
        return snapshot_view(self._snapshot(ctx, row, snapshot_id))

    def delete_snapshot(self, ctx: RequestContext, stack: StackIdentity, snapshot_id: str) -> None:
        row = self.find_stack(ctx, stack)
        snapshot = self._snapshot(ctx, row, snapshot_id)
        if snapshot.status == "IN_PROGRESS":
            raise InvalidTransition(
                f"Deleting snapshot {snapshot_id} while it is being taken is not supported"
            )
        self.store.delete_snapshot(snapshot.id)

    def restore_snapshot(
        self, ctx: RequestContext, stack: StackIdentity, snapshot_id: str
    ) -> None:
        row = self.find_stack(ctx, stack, live=True)
        snapshot = self._snapshot(ctx, row, snapshot_id)
        if snapshot.status != "COMPLETE":
            raise InvalidTransition(
                f"Snapshot {snapshot_id} is {snapshot.action}_{snapshot.status}: only a "
                "complete snapshot can be restored"
            )
        check_settled(row)
        template_id = self._snapshot_template(snapshot)
        with dropped_if_refused(self.store, template_id):
            self.runtime.converge(
                ConvergeRequest(
                    stack_id=row.id,
                    operation=Action.RESTORE,
                    template_id=template_id,
                    expected_traversal=row.current_traversal,
                    snapshot_id=snapshot.id,
                )
            )

    def _snapshot_template(self, snapshot: Snapshot) -> int | None:
        """Store the template a snapshot recorded (``None``: it recorded none)."""
        data = snapshot.data or {}
        template = data.get("template")
        if not isinstance(template, dict):
            return None
        schemas = parse_schemas(Template.from_document(template))
        return self.store.store_raw_template(
            template,
            dict(data.get("environment") or {}),
            dict(data.get("files") or {}),
            [name for name, schema in schemas.items() if schema.hidden],
        )
