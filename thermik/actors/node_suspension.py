"""A node's part in a clean stop: suspending its running action, and resuming one.

:class:`NodeSuspension` leaves the row of a running action ``<ACTION>_IN_PROGRESS`` and unlocked,
with where the action stood, when the engine stops cleanly, and takes such an action up again in
the next engine. What is stored and how is :mod:`thermik.actors.suspension`.
"""

from __future__ import annotations

from typing import Any

from thermik.actors import node_rules, rows, steps, suspension
from thermik.actors.node_outcomes import NodeOutcomes
from thermik.actors.node_state import Waiting
from thermik.engine.messages import StepFinished
from thermik.engine.states import Action, Status
from thermik.errors import LockConflict
from thermik.persistence.resource_values import Resource, ResourceChanges


class NodeSuspension(NodeOutcomes):
    """Suspending a node's action on a clean stop, and resuming a suspended one (a resumed
    action that ends completes like any other, hence the outcomes beneath)."""

    def _resume(self, row: Resource) -> None:
        """Take up the action a cleanly stopped engine suspended: poll it on from its
        recorded progress, or start it again when none was recorded."""
        operation = suspension.operation_of(row)
        if operation is None:
            self.row = rows.steal(self.store, row)
            self._begin()
            return
        plugin_cls = node_rules.stored_plugin(self.services, self.plan, row)
        props = node_rules.stored_props(self.store, self.plan, row, plugin_cls) or {}
        try:
            # The action goes on: its IN_PROGRESS was recorded when it started.
            self.row = rows.lock(
                self.store,
                row,
                self.services.engine_id,
                Action(row.action),
                ResourceChanges(),
                quiet=True,
            )
        except LockConflict:
            self._lock_lost()
            return
        self.locked = True
        self.resumed = True
        # Not ``never_created``: the interrupted action may have written resource data.
        call = self._call(plugin_cls(), props, operation)
        where = suspension.take(self.store, row)
        self.progress = progress = where.progress
        if where.done:
            self._submit(lambda: steps.attribute_values(call))
        elif not where.known and operation in suspension.RESTARTABLE:
            self._submit(lambda: steps.start(call))
        else:
            self._submit(lambda: steps.poll(call, progress))

    def _resumed_complete(self, result: steps.Completed) -> None:
        """The resumed action ended: a converging node now converges the row as usual (the
        traversal may converge to another template than the suspended action did), and a
        node of another action than the resumed one (a delete that found a create to finish)
        now does its own."""
        row = self.row
        assert row is not None
        self.resumed = False
        if not node_rules.converges(self.check) and self.check.action.value == row.action:
            self._complete(result)
            return
        changes = ResourceChanges(physical_resource_id=node_rules.physical_change(self.call))
        engine = self.services.engine_id
        self.row = rows.unlock(
            self.store, row, engine, Status.COMPLETE, rows.STATE_CHANGED, changes
        )
        self.locked = False
        self._begin()

    def suspend(self, step: StepFinished[Any] | None) -> None:
        """The engine stops cleanly: leave the locked row IN_PROGRESS, unlocked, with where
        its action was recorded, for the next engine to resume (nothing is reported).

        ``step`` is the outcome of the step that was running, if it ended; a row whose step
        failed or did not end stays locked, for recovery to fail it as a dead engine's, unless
        the step failed only because the engine was stopping (see :meth:`_refused`).
        """
        row = self.row
        if self.over or not self.locked or row is None:
            return
        if self.waiting is Waiting.STEP and self._refused(step) and self.previous is not None:
            # An in-place update the stopping runtime refused changed nothing: the row goes
            # back to where it was and the next engine updates it from there.
            self.row = node_rules.restore_previous(self.store, row, self.previous)
            self.locked = False
            self.over = True
            return
        where = self._where(step)
        if where is None:
            return
        physical = node_rules.physical_change(self.call)
        self.row = suspension.suspend(self.store, row, self.services.engine_id, where, physical)
        self.locked = False
        self.over = True

    def _where(self, step: StepFinished[Any] | None) -> suspension.Suspended | None:
        """Where the action stands for a clean stop; ``None``: unknown, leave it locked."""
        if self.waiting is Waiting.POLL:
            return suspension.Suspended(known=True, progress=self.progress)
        if self.waiting is not Waiting.STEP:
            return suspension.Suspended()
        result = None if step is None or step.failure is not None else step.result
        if isinstance(result, steps.Pending):
            return suspension.Suspended(known=True, progress=result.progress)
        if isinstance(result, steps.Completed):
            return suspension.Suspended(known=True, done=True)
        call = self.call
        if self._refused(step) and call is not None and call.operation in suspension.RESTARTABLE:
            return suspension.Suspended()  # not started: the next engine starts it again
        return None

    @staticmethod
    def _refused(step: StepFinished[Any] | None) -> bool:
        """Whether the step the stop interrupted failed only because the engine was stopping
        (a retryable error: a nested stack the stopping runtime would not start)."""
        failure = None if step is None else step.failure
        return failure is not None and failure.retryable
