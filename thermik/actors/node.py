"""Converging one node: what a resource actor does between a ``RunNode`` and its reply.

A :class:`NodeWork` is a small state machine driven by its actor's messages. It reads and locks
the version row, resolves and validates the properties, runs the plugin through executor steps
(:mod:`thermik.actors.steps`), polls with backoff on timers, and settles the row before replying
``ResourceDone``, ``ResourceFailed`` or ``ResourceNeedsReplacement``. It never blocks: anything
slow is a step or a timer, reported back through :meth:`NodeWork.on_step` and
:meth:`NodeWork.on_timer`.

This module has the entry, the node actions and the messages; the rest of the class lives in
:mod:`~thermik.actors.node_state` (the state and the moves every part shares: the plugin call,
submitting a step, locking the row, waiting), :mod:`~thermik.actors.node_outcomes` (completing,
failing, replacing) and :mod:`~thermik.actors.node_suspension` (a clean stop, and resuming).

Failure semantics: any :class:`~thermik.errors.ThermikError` (a plugin's, a property's, a lost
lock's) fails the node: the row, if this work locked it, goes to ``<ACTION>_FAILED`` with the
error as its reason, and the stack actor gets ``ResourceFailed``.
"""

from __future__ import annotations

from typing import Any

from thermik.actors import node_rules, rows, steps, suspension
from thermik.actors.node_state import Waiting
from thermik.actors.node_suspension import NodeSuspension
from thermik.actors.retention import RETAIN
from thermik.engine.messages import ResourceDone, StepFinished
from thermik.engine.operations import NodeAction
from thermik.engine.states import Action
from thermik.errors import Failure, ThermikError
from thermik.persistence.resource_values import Resource, ResourceChanges
from thermik.resources.plugin import Operation, Props, ResourcePlugin


class NodeWork(NodeSuspension):
    """The convergence of one node by its version's resource actor."""

    # -- entry --------------------------------------------------------------------------------

    def begin(self) -> None:
        """Start (or, after a lost lock, restart) the work from the row as stored."""
        if self.plan.closed.is_set():
            self._end()
            return
        try:
            self._begin()
        except ThermikError as error:
            self.fail(error)

    def _begin(self) -> None:
        row = self.row
        if row is None:
            hint = self.plan.rows.get(self.check.node.version_id)
            # A version that was never created may have been since (by a superseded
            # traversal): deleting its row without looking again could orphan a resource.
            if hint is None or (self.action is NodeAction.DELETE and hint.action == "INIT"):
                hint = self.store.get_resource(self.check.node.version_id)
            self.row = row = hint
        if suspension.is_suspended(row):
            self._resume(row)
            return
        self.action = node_rules.effective_action(self.check.action, row)
        handler = {
            NodeAction.CREATE: self._create,
            NodeAction.ADOPT: self._create,
            NodeAction.UPDATE: self._update,
            NodeAction.DELETE: self._delete,
            NodeAction.RETAIN: self._retain,
        }.get(self.action, self._observe)
        handler(row)

    # -- the node actions ---------------------------------------------------------------------

    def _create(self, row: Resource) -> None:
        definition = node_rules.definition(self.plan)
        plugin_cls = node_rules.plugin_for(self.services, self.plan, self.name)
        external_id = definition.resolve_external_id(self.name)
        if external_id is not None:
            self._adopt_external(row, plugin_cls, external_id)
            return
        adopting = self.action is NodeAction.ADOPT
        changes = ResourceChanges(
            requires=node_rules.requires_during(row, self.check),
            resource_type=definition.resources[self.name].type,
        )
        action = Action.ADOPT if adopting else Action.CREATE
        try:
            props = node_rules.resolve(self.store, self.plan, self.check, plugin_cls)
        except ThermikError as error:
            if self._lock(action, changes):
                self.fail(error)
            return
        if plugin_cls.store_only and not adopting:
            ahead = rows.Ahead(action, changes, props)
            call = self._call(
                plugin_cls(), props, Operation.CREATE, never_created=True, ahead=True
            )
            here = plugin_cls.runs_inline(props)
            self._run_ahead(ahead, lambda: steps.ahead(lambda: steps.start(call)), here=here)
            return
        if not self._lock(action, changes, properties=props):
            return
        call = self._call(plugin_cls(), props, Operation.CREATE, never_created=True)
        if adopting:
            entry = node_rules.adopt_entry(self.plan, self.name)
            self._submit(lambda: node_rules.adopt(call, entry))
        else:
            self._submit(lambda: steps.start(call))

    def _adopt_external(
        self, row: Resource, plugin_cls: type[ResourcePlugin], external_id: str
    ) -> None:
        """Adopt the existing physical resource an ``external_id`` names instead of creating
        one (its deletion policy is Retain: a delete leaves it too)."""
        definition = node_rules.definition(self.plan)
        changes = ResourceChanges(
            requires=node_rules.requires_during(row, self.check),
            resource_type=definition.resources[self.name].type,
        )
        try:
            props = node_rules.resolve(self.store, self.plan, self.check, plugin_cls)
        except ThermikError as error:
            if self._lock(Action.ADOPT, changes):
                self.fail(error)
            return
        if not self._lock(Action.ADOPT, changes, properties=props):
            return
        call = self._call(plugin_cls(), props, Operation.CHECK, never_created=True)
        self._submit(lambda: node_rules.adopt_external(call, external_id))

    def _update(self, row: Resource) -> None:
        plugin_cls = node_rules.plugin_for(self.services, self.plan, self.name)
        old_external, external = node_rules.external_ids(self.plan, row)
        if old_external != external:
            self.fail(node_rules.external_id_changed(row, self.plan))
            return
        if external is not None:
            # As Heat: an external resource is never updated; it converges as it is.
            props = self.plan.properties_of(self.store, row) or {}
            done = self._call(plugin_cls(), props, Operation.UPDATE)
            self._submit(lambda: steps.attribute_values(done))
            return
        why = node_rules.replacement_needed(self.services, row, plugin_cls, self.plan)
        if why is not None:
            self._replace(why)
            return
        try:
            props = node_rules.resolve(self.store, self.plan, self.check, plugin_cls)
        except ThermikError as error:
            if self._lock(Action.UPDATE, ResourceChanges()):
                self.fail(error)
            return
        self.old_props = old = self.plan.properties_of(self.store, row) or {}
        force = node_rules.restores_replaced(self.check, row) or node_rules.depends_on_changed(
            self.plan, row
        )
        if plugin_cls.store_only:
            self.previous = row
            changes = ResourceChanges(requires=node_rules.requires_during(row, self.check))
            ahead = rows.Ahead(Action.UPDATE, changes, props)
            call = self._call(plugin_cls(), props, Operation.UPDATE, ahead=True)
            here = plugin_cls.runs_inline(props)
            self._run_ahead(ahead, lambda: steps.update_ahead(call, old, force=force), here=here)
            return
        call = self._call(plugin_cls(), props, Operation.UPDATE)
        self._submit(lambda: steps.plan(call, old, force=force))

    def _delete(self, row: Resource) -> None:
        if row.action == Action.INIT.value:
            self.store.delete_resource(row.id)
            self._reply(ResourceDone(self.check.node, self.check.traversal_id, None))
            self._end()
            return
        plugin_cls = node_rules.stored_plugin(self.services, self.plan, row)
        props = node_rules.stored_props(self.store, self.plan, row, plugin_cls)
        policy = node_rules.deletion_policy(self.services, self.plan, row)
        if plugin_cls.store_only and props is not None and policy != RETAIN:
            call = self._call(plugin_cls(), props, Operation.DELETE, ahead=True)
            ahead = rows.Ahead(Action.DELETE, ResourceChanges(), shown=props)
            here = plugin_cls.runs_inline(props)
            self._run_ahead(ahead, lambda: steps.ahead(lambda: steps.start(call)), here=here)
            return
        if not self._lock(Action.DELETE, ResourceChanges(), shown=props):
            return
        call = self._call(plugin_cls(), props or {}, Operation.DELETE, deletion_policy=policy)
        if props is None or policy == RETAIN:
            self._complete(steps.Completed())
        else:
            self._submit(lambda: steps.start(call))

    def _retain(self, row: Resource) -> None:
        if self._lock(Action.DELETE, ResourceChanges()):
            self._complete(steps.Completed())

    def _observe(self, row: Resource) -> None:
        operation = node_rules.OBSERVATIONS[self.action]
        plugin_cls = node_rules.stored_plugin(self.services, self.plan, row)
        props = node_rules.stored_props(self.store, self.plan, row, plugin_cls) or {}
        if operation is Operation.CHECK and not plugin_cls.checks():
            self._not_checked(row, plugin_cls, props)
            return
        if node_rules.observed_already(operation, row):
            done = self._call(plugin_cls(), props, operation)
            self._submit(lambda: steps.attribute_values(done))
            return
        if not self._lock(Action(operation.value), ResourceChanges(), shown=props):
            return
        call = self._call(plugin_cls(), props, operation)
        self._submit(lambda: steps.start(call))

    def _not_checked(self, row: Resource, plugin_cls: type[ResourcePlugin], props: Props) -> None:
        """As Heat: a version whose plugin cannot check is not checked; it records
        ``CHECK_COMPLETE`` saying so (one event), unless it was never created."""
        if row.action == Action.INIT.value:
            self._complete(steps.Completed())
            return
        if self._lock(Action.CHECK, ResourceChanges(), quiet=True):
            self.settled_reason = node_rules.check_unsupported(row)
            call = self._call(plugin_cls(), props, Operation.CHECK)
            self._submit(lambda: steps.attribute_values(call))

    # -- messages -----------------------------------------------------------------------------

    def on_step(self, message: StepFinished[Any]) -> None:
        """An executor step ended."""
        failure = message.failure
        if failure is not None and failure.retryable and self.services.resources.closed:
            return  # refused by the stopping engine: the stop suspends the action (``suspend``)
        self.waiting = Waiting.NOTHING
        # Only the outcome of the action run ahead of the lock records it (see ``_ran``).
        ahead, self.ahead = self.ahead, None
        try:
            if isinstance(message.result, steps.Ran):
                assert ahead is not None
                self._ran(message.result, ahead)
                return
            if ahead is not None and self.call is not None:
                self.call.ctx.data.flush()  # what a plan wrote, if anything (it should not)
            if message.failure is not None:
                self.fail(message.failure)
            else:
                self._stepped(message.result)
        except ThermikError as error:
            self.fail(error)

    def _stepped(self, result: object) -> None:
        if isinstance(result, steps.Pending):
            self.progress = result.progress
            self._publish_physical_id()
            if self.cancelled:
                self._cancel_plugin()
            else:
                woken, self.woken = self.woken, False
                self._wait(Waiting.POLL, 0.0 if woken else result.poll_after)
        elif isinstance(result, steps.Completed) and self.resumed:
            self._resumed_complete(result)
        elif isinstance(result, steps.Completed):
            restoring = node_rules.restore_data(self.plan, self.check, self.call)
            if restoring is None:
                self._complete(result)
            else:
                self._restore(restoring)
        elif isinstance(result, steps.Replace):
            self._replace(result.reason)
        elif isinstance(result, steps.Planned):
            self._update_in_place(result.changed)
        else:
            self.fail(self._cancel_error())

    def _ran(self, ran: steps.Ran, ahead: rows.Ahead) -> None:
        """A store-only plugin's action ran ahead of the lock (``ahead``: what the lock would
        have written): a completed one is recorded in one write; anything else takes the lock
        now, stores the action's data and goes on as if the lock had come first."""
        call = self.call
        assert call is not None
        result = ran.result
        restoring = node_rules.restore_data(self.plan, self.check, call)
        if isinstance(result, steps.Completed) and restoring is None:
            self._complete(result, ahead)
            return
        if not self._lock(
            ahead.action, ahead.changes, properties=ahead.properties, shown=ahead.shown
        ):
            return
        call.ctx.data.flush()
        if ran.failure is not None:
            self.fail(ran.failure)
        else:
            self._stepped(result)

    def on_timer(self, grace: bool) -> None:
        """A timer of this work fired: poll, retry the lock, or give up waiting on a cancel."""
        if grace:
            if not self.reported:
                self._reply(self._failed(Failure.from_exception(self._cancel_error())))
            return
        what = self.waiting
        if what is Waiting.POLL and self.call is not None:
            call, progress = self.call, self.progress
            self._submit(lambda: steps.poll(call, progress))
        elif what is Waiting.LOCK:
            self.waiting = Waiting.NOTHING
            self.begin()

    def poll_now(self) -> None:
        """What the plugin waits for may have happened (a signal arrived): poll at once."""
        if self.waiting is Waiting.STEP:
            # The running step may have looked before it happened.
            self.woken = True
            return
        if self.waiting is not Waiting.POLL or self.call is None or self.cancelled:
            return
        if self.timer is not None:
            self.timer.cancel()
        call, progress = self.call, self.progress
        self._submit(lambda: steps.poll(call, progress))

    def on_cancel(self, grace: float, why: str = "") -> None:
        """The stack cancelled this node (``why`` says for what): stop the plugin, with
        ``grace`` seconds to do so."""
        if self.reported or self.cancelled or self.over:
            return
        self.cancelled = True
        self.cancel_why = why
        if self.waiting in (Waiting.POLL, Waiting.LOCK) and self.timer is not None:
            self.timer.cancel()
        if self.waiting is Waiting.LOCK or not self.locked:
            self.waiting = Waiting.NOTHING
            self.fail(self._cancel_error())
            return
        if self.waiting is Waiting.POLL:
            self._cancel_plugin()
        self.port.later(self.job, grace, grace=True)

    def _cancel_error(self) -> ThermikError:
        row = self.row
        if self.call is not None:
            plugin = type(self.call.plugin).__name__
        else:
            plugin = row.resource_type if row is not None else "Resource"
        task = node_rules.task_name(plugin, row, self.name, self.plan.stack)
        waited = steps.unavailable_reason(self.progress) if self.call is not None else None
        return node_rules.aborted(row, self.name, self.cancel_why, task, waited)

    def _cancel_plugin(self) -> None:
        call = self.call
        assert call is not None
        self._submit(lambda: steps.cancel(call))
