"""How a node's work ends: the row settled and the stack actor told.

:class:`NodeOutcomes` completes the node (``ResourceDone``, with the attributes an update node
resolved), fails it (``ResourceFailed``, the row to ``<ACTION>_FAILED`` if this work locked it),
or reports that it needs a replacement (``ResourceNeedsReplacement``, an in-place update's row
restored first); and goes on to an in-place update or a restore once the plugin planned one.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping

from thermik.actors import codec, node_rules, rows, steps
from thermik.actors.node_state import NodeState, Waiting
from thermik.actors.stored import REFERENCE_ID_KEY
from thermik.engine.messages import (
    AttributeKey,
    Event,
    NodeData,
    PersistNodeResult,
    ResourceDone,
    ResourceFailed,
    ResourceNeedsReplacement,
)
from thermik.engine.states import Action, State, Status
from thermik.errors import ActionAborted, Failure, LockConflict, ThermikError
from thermik.persistence.resource_values import JoinArrival, Resource, ResourceChanges
from thermik.persistence.values import KEEP
from thermik.resources.plugin import Operation

LOG = logging.getLogger(__name__)


class NodeOutcomes(NodeState):
    """The outcomes of a node's work."""

    def _update_in_place(self, changed: frozenset[str]) -> None:
        row, call = self.row, self.call
        assert row is not None
        assert call is not None
        changes = ResourceChanges(requires=node_rules.requires_during(row, self.check))
        self.previous = row
        if not self._lock(Action.UPDATE, changes, properties=call.props):
            return
        old = self.old_props
        self._submit(lambda: steps.update(call, old, changed))

    def _restore(self, data: Mapping[str, str]) -> None:
        """A restore's node converged: give the plugin its snapshot data before completing."""
        row, call = self.row, self.call
        assert row is not None
        assert call is not None
        if not self.locked:
            changes = ResourceChanges(requires=node_rules.requires_during(row, self.check))
            if not self._lock(Action.UPDATE, changes):
                return
        self.call = call = dataclasses.replace(call, operation=Operation.RESTORE)
        self._submit(lambda: steps.restore(call, data))

    def _replace(self, reason: str) -> None:
        if self.locked and self.row is not None and self.previous is not None:
            self.row = node_rules.restore_previous(self.store, self.row, self.previous)
            self.locked = False
        self._reply(ResourceNeedsReplacement(self.check.node, self.check.traversal_id, reason))
        self._end()

    def _complete(self, result: steps.Completed, ahead: rows.Ahead | None = None) -> None:
        """Settle the node as COMPLETE (recording ``ahead`` an action that ran before the row
        was locked) and report it."""
        row = self.row
        assert row is not None
        changes = node_rules.completion_changes(row, self.check, self.plan, self.call)
        engine = self.services.engine_id
        stored = None
        if self.check.node.is_update and result.attributes is not None:
            stored = {**result.attributes, REFERENCE_ID_KEY: result.reference_id}
        # The state the row is left in: the lock's action completed, or as it was.
        state = self._completed_state(row, ahead)
        acted = ahead is not None or self.locked
        data = None if stored is None else self._node_data(row, state, result)
        # Recorded with the final state: the stack then dispatches what it enables at once.
        arrival = None if self.reported else self._arrival(data)
        if ahead is not None:
            assert self.call is not None
            try:
                self.row = rows.record(
                    self.store,
                    row,
                    ahead,
                    self.settled_reason,
                    changes,
                    data=self.call.ctx.data.take(),
                    attributes=stored,
                    arrival=arrival,
                )
            except LockConflict:
                self._lock_lost()
                return
        elif self.locked:
            self.row = rows.unlock(
                self.store,
                row,
                engine,
                Status.COMPLETE,
                self.settled_reason,
                changes,
                attributes=stored,
                arrival=arrival,
                shown=self.shown,
            )
            self.locked = False
        else:
            try:
                self.row = rows.respect(
                    self.store, row, changes, attributes=stored, arrival=arrival
                )
            except LockConflict:
                self._lock_lost()
                return
        if not self.reported:
            check = self.check
            done = ResourceDone(check.node, check.traversal_id, data, recorded=True, acted=acted)
            self._reply(done)
        self._end()

    def _completed_state(self, row: Resource, ahead: rows.Ahead | None) -> State:
        if ahead is not None:
            return State(ahead.action, Status.COMPLETE)
        if self.locked:
            return State(Action(row.action), Status.COMPLETE)
        return rows.state_of(row)

    def _arrival(self, data: NodeData | None) -> JoinArrival:
        check = self.check
        return codec.arrival(
            PersistNodeResult(check.traversal_id, check.joins_as, check.node, data)
        )

    def _node_data(self, row: Resource, state: State, result: steps.Completed) -> NodeData:
        assert result.attributes is not None
        wanted = self.plan.referenced.get(row.name, ())
        found = result.attributes
        names = found if wanted is None else [name for name in wanted if name in found]
        values: dict[AttributeKey, object] = {name: found[name] for name in names}
        return NodeData(row.id, row.name, result.reference_id, values, state)

    def fail(self, error: ThermikError | Failure) -> None:
        """Settle the node as FAILED (the row too, if this work locked it) and report it."""
        if self.over:
            return
        failure = self._failure(error)
        row = self.row
        if self.locked and row is not None:
            failure = self._settle_failed(row, failure)
            self.locked = False
        if not self.reported:
            self._reply(self._failed(failure))
        self._end()

    def _settle_failed(self, row: Resource, failure: Failure) -> Failure:
        """Unlock the row as FAILED with the plugin's physical id; should the store refuse
        that id, without it (the row must not stay locked IN_PROGRESS). The failure to
        report: the store's refusal, if any."""
        engine = self.services.engine_id
        physical = node_rules.physical_change(self.call)
        try:
            changes = ResourceChanges(physical_resource_id=physical)
            self.row = rows.unlock(
                self.store, row, engine, Status.FAILED, str(failure), changes, shown=self.shown
            )
        except ThermikError as unlock_error:
            failure = self._failure(unlock_error)
            if physical is KEEP:
                return failure
            try:
                self.row = rows.unlock(
                    self.store,
                    row,
                    engine,
                    Status.FAILED,
                    str(failure),
                    ResourceChanges(),
                    shown=self.shown,
                )
            except ThermikError as again:
                LOG.warning("resource %s: left locked: %s", self.name, again)
        return failure

    def report_only(self, failure: Failure) -> None:
        """Tell the stack the node failed without touching the row (settling it failed:
        the stack must still learn of it, rather than wait forever)."""
        self.locked = False
        if not self.reported:
            self._reply(self._failed(self._failure(failure)))
        self.over = True

    def _failure(self, error: ThermikError | Failure) -> Failure:
        """The failure as Heat records it for this resource (``ValueError: resources.web:
        ...``); an aborted action's reason stands alone (``UPDATE aborted``)."""
        if isinstance(error, ActionAborted):
            return Failure.from_exception(error)
        failure = error if isinstance(error, Failure) else Failure.from_exception(error)
        return failure.of_resource(self.name)

    def _failed(self, failure: Failure) -> ResourceFailed:
        return ResourceFailed(self.check.node, self.check.traversal_id, failure)

    def _reply(self, event: Event) -> None:
        self.reported = True
        self.port.reply(self.plan.stack.id, event)

    def _end(self) -> None:
        if self.waiting is not Waiting.NOTHING or self.over:
            return
        self.over = True
        self.port.finished(self.job)
