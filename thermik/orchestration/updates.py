"""Stack updates: PUT and PATCH semantics, immutable parameters, and the update preview.

PUT (``existing`` false) replaces the template, environment and parameters. PATCH keeps what
is not sent: the stored template when none is given, the stored files under the new ones, and
the stored environment with the new one merged over it, minus the ``clear_parameters``. As in
Heat, an update is refused while the stack is being deleted or is suspended, an ``immutable``
parameter may not change, and the new definition is checked fully before anything is stored.
"""

from __future__ import annotations

import contextlib
import dataclasses

from thermik.actors.runtime import ConvergeRequest
from thermik.api.boundary import RequestContext, ResourceChanges, StackIdentity, StackUpdate
from thermik.engine.states import Action
from thermik.errors import (
    InvalidTransition,
    LeaseConflict,
    ParameterError,
    TraversalConflict,
)
from thermik.orchestration.base import Base, definition_identity
from thermik.orchestration.changes import plan_changes
from thermik.orchestration.prepare import (
    Prepared,
    check_sources,
    load_template,
    patch_environment,
    prepare,
    request_environment,
)
from thermik.orchestration.stored_templates import dropped_if_refused
from thermik.persistence.values import Stack, StackChanges

#: Stack actions during which Heat refuses an update, and how it says so.
_REFUSED = {"DELETE": "deleting", "SUSPEND": "suspended"}


class UpdateOperations(Base):
    """Update and preview update."""

    def _prepare_update(self, ctx: RequestContext, row: Stack, update: StackUpdate) -> Prepared:
        refused = _REFUSED.get(row.action)
        if refused is not None:
            raise InvalidTransition(
                f"Updating a stack when it is {refused} is not supported "
                f"(stack {row.name} is {row.action}_{row.status})",
                stack=row.name,
            )
        request = update.request
        check_sources(request)
        raw, current = self.stored_definition(row)
        if update.existing:
            files = {**raw.files, **request.files}
            document = raw.template if request.template is None else request.template
            template = load_template(document, files, self.limits)
            base = patch_environment(raw.environment, update.clear_parameters)
            request = dataclasses.replace(request, files=files)
            environment = request_environment(request, template, self.limits, base=base)
        else:
            template = load_template(request.template, request.files, self.limits)
            environment = request_environment(request, template, self.limits)
        prepared = prepare(
            template,
            environment,
            definition_identity(row),
            self.registry,
            self.limits,
            self.constraints(ctx),
        )
        changed = current.parameters.immutable_changes(prepared.definition.parameters)
        if changed:
            raise ParameterError(
                "The following parameters are immutable and may not be updated: "
                + ", ".join(changed),
                parameter=changed[0],
            )
        return prepared

    def update_stack(self, ctx: RequestContext, stack: StackIdentity, update: StackUpdate) -> None:
        row = self.find_stack(ctx, stack, live=True)
        prepared = self._prepare_update(ctx, row, update)
        template_id = self.store.store_raw_template(
            prepared.template, prepared.environment, prepared.files, prepared.hidden_parameters
        )
        request = update.request
        try:
            with dropped_if_refused(self.store, template_id):
                traversal = self.runtime.converge(
                    ConvergeRequest(
                        stack_id=row.id,
                        operation=Action.UPDATE,
                        template_id=template_id,
                        disable_rollback=request.disable_rollback,
                        timeout_mins=request.timeout_mins,
                    )
                )
        except LeaseConflict:
            elsewhere = self.driven_elsewhere(row)
            if elsewhere is not None:
                raise elsewhere from None
            raise
        tags = request.tags
        if tags is None and not update.existing:
            # A PUT replaces the stack's attributes, as in Heat: no tags given leaves none.
            tags = ()
        if tags is not None:
            changes = StackChanges(tags=tags)
            # A newer operation may have superseded this update already; its own tags stand.
            with contextlib.suppress(TraversalConflict):
                self.store.update_stack(row.id, traversal, changes)

    def preview_update(
        self,
        ctx: RequestContext,
        stack: StackIdentity,
        update: StackUpdate,
        *,
        show_nested: bool = False,
    ) -> ResourceChanges:
        row = self.find_stack(ctx, stack, live=True)
        prepared = self._prepare_update(ctx, row, update)
        return plan_changes(self.store, self.registry, row, prepared.definition)
