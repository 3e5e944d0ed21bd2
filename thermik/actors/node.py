"""Converging one node: what a resource actor does between a ``RunNode`` and its reply.

A :class:`NodeWork` is a small state machine driven by its actor's messages. It reads and locks
the version row, resolves and validates the properties, runs the plugin through executor steps
(:mod:`thermik.actors.steps`), polls with backoff on timers, and settles the row before replying
``ResourceDone``, ``ResourceFailed`` or ``ResourceNeedsReplacement``. It never blocks: anything
slow is a step or a timer, reported back through :meth:`NodeWork.on_step` and
:meth:`NodeWork.on_timer`.

Failure semantics: any :class:`~thermik.errors.ThermikError` (a plugin's, a property's, a lost
lock's) fails the node: the row, if this work locked it, goes to ``<ACTION>_FAILED`` with the
error as its reason, and the stack actor gets ``ResourceFailed``.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from thermik.actors import node_rules, rows, steps, suspension
from thermik.actors.context import StoreContext
from thermik.actors.plan import TraversalPlan
from thermik.actors.services import Services
from thermik.actors.stored import REFERENCE_ID_KEY
from thermik.actors.timers import TimerHandle
from thermik.engine.messages import (
    AttributeKey,
    Event,
    NodeData,
    ResourceDone,
    ResourceFailed,
    ResourceNeedsReplacement,
    RunNode,
    StepFinished,
)
from thermik.engine.operations import NodeAction
from thermik.engine.states import RESOURCE, Action, State, Status, check_transition
from thermik.errors import ActionAborted, Failure, LockConflict, ThermikError
from thermik.persistence.resource_values import Resource, ResourceChanges
from thermik.resources.plugin import Operation, Progress, Props, ResourcePlugin

#: Backoff of polls the plugin gives no hint for, and of lock retries: first, factor, cap.
BACKOFF = (0.05, 1.6, 5.0)
#: How often a lock lost to a stale atomic key is retried with a fresh read.
LOCK_ATTEMPTS = 5


class Port(Protocol):
    """What a node's work needs from its actor."""

    def submit(self, job: int, step: Callable[[], object]) -> None:
        """Run ``step`` on the executor; its outcome comes back as ``StepFinished(job)``."""

    def later(self, job: int, seconds: float, *, grace: bool = False) -> TimerHandle:
        """Send ``PollDue(job, grace)`` after ``seconds``."""

    def reply(self, stack_id: str, event: Event) -> None:
        """Tell the stack actor."""

    def finished(self, job: int) -> None:
        """The work is over: the actor may take its next one."""


class Waiting(enum.Enum):
    """What the work waits for."""

    NOTHING = "nothing"
    STEP = "step"
    POLL = "poll"
    LOCK = "lock"


class NodeWork:
    """The convergence of one node by its version's resource actor."""

    def __init__(
        self, port: Port, services: Services, run: RunNode[TraversalPlan], job: int
    ) -> None:
        self.port = port
        self.services = services
        self.store = services.store
        self.check = run.check
        self.plan = run.context
        self.job = job
        self.row: Resource | None = None
        self.previous: Resource | None = None
        self.action = self.check.action
        self.call: steps.Call | None = None
        self.old_props: Props = {}
        self.progress: Progress | None = None
        self.waiting = Waiting.NOTHING
        self.timer: TimerHandle | None = None
        self.delay = BACKOFF[0]
        self.attempts = 0
        self.locked = False
        self.cancelled = False
        #: The reason a successful action records.
        self.settled_reason = rows.STATE_CHANGED
        #: Why the stack cancelled the work (named in the aborted action's reason).
        self.cancel_why = ""
        self.reported = False
        self.over = False
        #: The work took up an action a cleanly stopped engine suspended.
        self.resumed = False
        #: A wake arrived while a step ran: the next wait polls at once instead.
        self.woken = False

    @property
    def name(self) -> str:
        """The logical resource name."""
        return self.check.name

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
        adopting = self.action is NodeAction.ADOPT
        changes = ResourceChanges(
            requires=node_rules.requires_during(row, self.check),
            resource_type=definition.resources[self.name].type,
        )
        action = Action.ADOPT if adopting else Action.CREATE
        try:
            props = node_rules.resolve(self.plan, self.check, plugin_cls)
        except ThermikError as error:
            if self._lock(action, changes):
                self.fail(error)
            return
        if not self._lock(action, changes, properties=props):
            return
        call = self._call(plugin_cls(), props, Operation.CREATE, never_created=True)
        if adopting:
            entry = node_rules.adopt_entry(self.plan, self.name)
            self._submit(lambda: node_rules.adopt(call, entry))
        else:
            self._submit(lambda: steps.start(call))

    def _update(self, row: Resource) -> None:
        plugin_cls = node_rules.plugin_for(self.services, self.plan, self.name)
        why = node_rules.replacement_needed(self.services, row, plugin_cls, self.plan)
        if why is not None:
            self._replace(why)
            return
        try:
            props = node_rules.resolve(self.plan, self.check, plugin_cls)
        except ThermikError as error:
            if self._lock(Action.UPDATE, ResourceChanges()):
                self.fail(error)
            return
        self.old_props = old = self.plan.properties_of(self.store, row) or {}
        call = self._call(plugin_cls(), props, Operation.UPDATE)
        self._submit(lambda: steps.plan(call, old))

    def _delete(self, row: Resource) -> None:
        if row.action == Action.INIT.value:
            self.store.delete_resource(row.id)
            self._reply(ResourceDone(self.check.node, self.check.traversal_id, None))
            self._end()
            return
        plugin_cls = node_rules.stored_plugin(self.services, self.plan, row)
        props = node_rules.stored_props(self.store, self.plan, row, plugin_cls)
        if not self._lock(Action.DELETE, ResourceChanges()):
            return
        call = self._call(plugin_cls(), props or {}, Operation.DELETE)
        if props is None or node_rules.retained(self.services, self.plan, row):
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
        if not self._lock(Action(operation.value), ResourceChanges()):
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
        traversal may converge to another template than the suspended action did)."""
        row = self.row
        assert row is not None
        self.resumed = False
        if not node_rules.converges(self.check):
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

    # -- helpers ------------------------------------------------------------------------------

    def _call(
        self,
        plugin: ResourcePlugin,
        props: Props,
        operation: Operation,
        *,
        never_created: bool = False,
    ) -> steps.Call:
        row = self.row
        assert row is not None
        version_id = row.id
        ctx = StoreContext(
            self.store,
            self.plan.stack,
            row.id,
            row.name,
            node_rules.type_of(self.plan, row),
            row.physical_resource_id,
            rng=lambda: self.services.rng(version_id),
            never_created=never_created,
            software=self.services.software,
            nested=self.services.nested,
        )
        attributes = None
        if self.check.node.is_update:
            wanted = self.plan.referenced.get(row.name, ())
            attributes = node_rules.attribute_names(plugin, wanted)
        self.call = steps.Call(plugin, ctx, props, operation, attributes)
        return self.call

    def _submit(self, step: Callable[[], object]) -> None:
        self.waiting = Waiting.STEP
        self.port.submit(self.job, step)

    def _lock(
        self,
        action: Action,
        changes: ResourceChanges,
        *,
        properties: Props | None = None,
        quiet: bool = False,
    ) -> bool:
        """Lock the row into ``<action>_IN_PROGRESS``, storing the ``properties`` it converges
        to; False if the work restarted or waits."""
        row = self.row
        assert row is not None
        target = State(action, Status.IN_PROGRESS)
        if not RESOURCE.allows(rows.state_of(row), target):
            fresh = self.store.get_resource(row.id)
            held = fresh.engine_id not in (None, self.services.engine_id)
            if fresh.atomic_key != row.atomic_key or held:
                # The row read when the traversal started has moved on since, or another
                # engine (perhaps a dead one) still holds it: start again once it is free.
                self._lock_lost()
                return False
            check_transition(RESOURCE, rows.state_of(row), target, resource=row.name)
        engine = self.services.engine_id
        try:
            self.row = rows.lock(
                self.store, row, engine, action, changes, properties=properties, quiet=quiet
            )
        except LockConflict:
            self._lock_lost()
            return False
        self.locked = True
        return True

    def _lock_lost(self) -> None:
        self.attempts += 1
        fresh = self.store.get_resource(self.check.node.version_id)
        holder = fresh.engine_id
        if holder is not None and holder != self.services.engine_id:
            if self.services.engine_alive(holder):
                self.row = fresh
                self._wait(Waiting.LOCK, None)
                return
            fresh = rows.steal(self.store, fresh)
        elif self.attempts >= LOCK_ATTEMPTS:
            raise LockConflict(f"resource {fresh.name} keeps changing; could not lock it")
        self.row = fresh
        self._begin()

    def _wait(self, what: Waiting, seconds: float | None) -> None:
        if seconds is None:
            seconds = self.delay
            self.delay = min(self.delay * BACKOFF[1], BACKOFF[2])
        self.waiting = what
        self.timer = self.port.later(self.job, seconds)

    # -- messages -----------------------------------------------------------------------------

    def on_step(self, message: StepFinished[Any]) -> None:
        """An executor step ended."""
        failure = message.failure
        if failure is not None and failure.retryable and self.services.resources.closed:
            return  # refused by the stopping engine: the stop suspends the action (``suspend``)
        self.waiting = Waiting.NOTHING
        try:
            if message.failure is not None:
                self.fail(message.failure)
            else:
                self._stepped(message.result)
        except ThermikError as error:
            self.fail(error)

    def _stepped(self, result: object) -> None:
        if isinstance(result, steps.Pending):
            self.progress = result.progress
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
        return node_rules.aborted(row, self.name, self.cancel_why, task)

    def _cancel_plugin(self) -> None:
        call = self.call
        assert call is not None
        self._submit(lambda: steps.cancel(call))

    # -- outcomes -----------------------------------------------------------------------------

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

    def _complete(self, result: steps.Completed) -> None:
        row = self.row
        assert row is not None
        changes = node_rules.completion_changes(row, self.check, self.plan, self.call)
        engine = self.services.engine_id
        stored = None
        if self.check.node.is_update and result.attributes is not None:
            stored = {**result.attributes, REFERENCE_ID_KEY: result.reference_id}
        if self.locked:
            self.row = rows.unlock(
                self.store,
                row,
                engine,
                Status.COMPLETE,
                self.settled_reason,
                changes,
                attributes=stored,
            )
            self.locked = False
        else:
            try:
                self.row = rows.respect(self.store, row, changes, attributes=stored)
            except LockConflict:
                self._lock_lost()
                return
        data = None if stored is None else self._node_data(result)
        if not self.reported:
            self._reply(ResourceDone(self.check.node, self.check.traversal_id, data))
        self._end()

    def _node_data(self, result: steps.Completed) -> NodeData:
        row = self.row
        assert row is not None
        assert result.attributes is not None
        wanted = self.plan.referenced.get(row.name, ())
        found = result.attributes
        names = found if wanted is None else [name for name in wanted if name in found]
        values: dict[AttributeKey, object] = {name: found[name] for name in names}
        return NodeData(row.id, row.name, result.reference_id, values, rows.state_of(row))

    def fail(self, error: ThermikError | Failure) -> None:
        """Settle the node as FAILED (the row too, if this work locked it) and report it."""
        if self.over:
            return
        failure = self._failure(error)
        row = self.row
        if self.locked and row is not None:
            changes = ResourceChanges(physical_resource_id=node_rules.physical_change(self.call))
            engine = self.services.engine_id
            try:
                self.row = rows.unlock(
                    self.store, row, engine, Status.FAILED, str(failure), changes
                )
            except ThermikError as unlock_error:
                failure = self._failure(unlock_error)
            self.locked = False
        if not self.reported:
            self._reply(self._failed(failure))
        self._end()

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
