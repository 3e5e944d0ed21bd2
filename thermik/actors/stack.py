"""The StackActor: one per stack with a traversal, the shell around :func:`decide`.

It turns requests (create, converge, cancel, resume) and replies from resource actors into
``decide`` calls and executes the returned commands in order: a join record is appended before
the successors it enables are dispatched, a state is stored before it is reported. When its
traversal is over it releases the stack lease and stops: idle stacks hold no actor.

Failure semantics: requests raise to their caller (``TraversalConflict`` when the
compare-and-swap lost, ``InvalidTransition``, ``StackNotFound``); once a traversal runs, every
failure ends as a stored FAILED state, never as an exception: an unexpected error while the
actor handles a reply or runs commands is logged and fails the traversal (``ShellFault``). A
store write fenced by a newer traversal (another engine, a newer request) is dropped: that
traversal owns the stack now.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import logging
import uuid
from collections.abc import Callable
from typing import Any

from thermik.actors import codec, creation, hooks, stack_changes
from thermik.actors.check_support import fully_checkable
from thermik.actors.codec import TraversalRecord
from thermik.actors.creation import CreateStack
from thermik.actors.plan import TraversalPlan, load_definition
from thermik.actors.planning import EMPTYING, Prepared, definition_of, prepare
from thermik.actors.services import Services
from thermik.actors.table import PooledActor
from thermik.actors.timers import TimerHandle
from thermik.engine.decide import decide
from thermik.engine.messages import (
    ArmTimer,
    CancelNode,
    CancelRequested,
    CancelStack,
    ClearHook,
    CloseTraversal,
    Command,
    ConvergeRequest,
    CreateReplacementVersion,
    DispatchNode,
    Event,
    GraceExpired,
    HookCleared,
    MarkStackComplete,
    PersistNodeResult,
    PersistStackState,
    RecordEvent,
    RejectRequest,
    ResumeStack,
    ResumeTraversal,
    RunNode,
    ShellFault,
    StartRollback,
    StartTraversal,
    TimeoutFired,
    TimerKind,
    TraversalOptions,
)
from thermik.engine.operations import started_reason
from thermik.engine.states import STACK, Action, State, Status, check_transition
from thermik.engine.traversal import TraversalState
from thermik.errors import (
    Conflict,
    Failure,
    InvalidBreakPointHook,
    InvalidTransition,
    NotFound,
    ThermikError,
    TraversalConflict,
)
from thermik.persistence.values import NewLease, Stack
from thermik.resources.context import StackIdentity
from thermik.template import StackDefinition

DELETED = State(Action.DELETE, Status.COMPLETE)

LOG = logging.getLogger(__name__)

#: At most this many commands wait for the inbox to empty before they are executed.
BATCH_LIMIT = 64


class StackActor(PooledActor):
    """Owns one stack's traversal: its state, its join counters and its timers."""

    def __init__(self, services: Services, stack_id: str) -> None:
        super().__init__(services.threads)
        self.services = services
        self.store = services.store
        self.stack_id = stack_id
        self.state = TraversalState.idle()
        self.plans: dict[str, TraversalPlan] = {}
        self.timers: dict[str, list[TimerHandle]] = collections.defaultdict(list)
        self.followups: collections.deque[Callable[[], None]] = collections.deque()
        self.rejection: Failure | None = None
        self.stack: Stack | None = None
        self.pending: list[Command] = []
        #: The lease was released when the actor retired (its stop must not release it again).
        self.released = False
        self._by_type: dict[type, Callable[[Any], None]] | None = None
        #: A ``ShellFault`` is being handled (a fault while handling it must not recurse).
        self._faulting = False

    # -- messages -----------------------------------------------------------------------------

    def on_receive(self, message: Any) -> Any:
        try:
            if isinstance(message, ConvergeRequest):
                return self._converge(message)
            if isinstance(message, CreateStack):
                return self._create(message)
            if isinstance(message, CancelStack):
                return self._cancel(message)
            if isinstance(message, ClearHook):
                return self._clear_hook(message)
            if isinstance(message, ResumeStack):
                return self._resume()
            self._guarded(lambda: self.feed(message, batch=True), message)
            return None
        finally:
            if not self._batching():
                self._guarded(self._settle, message)

    def _settle(self) -> None:
        self._flush()
        self._drain()
        self._retire_if_idle()

    def _guarded(self, work: Callable[[], None], message: Any) -> None:
        """Run ``work``; an unexpected error (a bug) is logged with its traceback and fails
        the traversal (``ShellFault``) instead of killing this actor, which would leave the
        stack IN_PROGRESS forever. A fault while failing is logged and left to the deadline."""
        try:
            work()
        except Exception as error:
            LOG.exception(
                "stack %s: unexpected error handling %s", self.stack_id, type(message).__name__
            )
            if self._faulting:
                return
            self._faulting = True
            try:
                self.pending.clear()
                self.feed(ShellFault(self.state.traversal_id, Failure.from_exception(error)))
                self._settle()
            except Exception:
                LOG.exception("stack %s: could not fail the traversal", self.stack_id)
            finally:
                self._faulting = False

    def feed(self, event: Event, *, batch: bool = False) -> None:
        """Apply ``event`` to the traversal and execute the commands, in order.

        With ``batch``, execution waits until the inbox is empty (or enough results piled
        up): the join records of all those replies are then appended in one transaction,
        before any other of their commands runs.
        """
        decision = decide(self.state, event)
        self.state = decision.state
        self.pending.extend(decision.commands)
        if not batch:
            self._flush()

    def _batching(self) -> bool:
        return len(self.pending) < BATCH_LIMIT and not self.actor_inbox.empty()

    def _flush(self) -> None:
        commands, self.pending = self.pending, []
        # Results the resource actors recorded with their final write need no second record.
        results = [c for c in commands if isinstance(c, PersistNodeResult) and not c.recorded]
        if results:
            self.store.append_arrivals(self.stack_id, [codec.arrival(c) for c in results])
        for command in commands:
            if not isinstance(command, PersistNodeResult):
                self._execute(command)

    def _drain(self) -> None:
        while self.followups:
            self.followups.popleft()()

    def _retire_if_idle(self) -> None:
        if not self.state.closed or self.followups:
            return
        # Released while this actor is still the stack's: once it left the table, a new
        # actor may take the lease for the next operation, which this stop must not release.
        self._release_lease()
        if self.services.stacks.retire(self.stack_id, self):
            self.released = True
            self.services.settled(self.stack_id)

    def on_stop(self) -> None:
        for handles in self.timers.values():
            for handle in handles:
                handle.cancel()
        for plan in self.plans.values():
            plan.closed.set()
        if not self.released:
            self._release_lease()

    def _release_lease(self) -> None:
        try:
            self.store.release_lease(self.stack_id, self.services.engine_id)
        except ThermikError:
            LOG.warning("stack %s: could not release its lease", self.stack_id)

    # -- requests -----------------------------------------------------------------------------

    def _converge(self, request: ConvergeRequest) -> str:
        stack = self.store.get_stack(request.stack_id)
        operation = request.operation
        if operation is Action.ROLLBACK:
            return self._roll_back(stack, stack.current_traversal, request.expected_traversal)
        current = State(Action(stack.action), Status(stack.status))
        target = stack_changes.target_state(operation)
        check_transition(STACK, current, target, stack=stack.name)
        template_id = stack_changes.template_for(operation, request, stack)
        definition = None
        if operation not in EMPTYING:
            definition = definition_of(self.services, stack, template_id)
        expected = request.expected_traversal
        if expected is None:
            expected = stack.current_traversal
        record = TraversalRecord(
            operation,
            stack.raw_template_id,
            request.snapshot_id,
            request.adopt_data,
            request.timeout_seconds,
        )
        changes = stack_changes.starting(record, request, stack, template_id)
        return self._swap_and_start(stack, expected, record, changes, definition)

    def _create(self, message: CreateStack) -> Stack:
        new = message.new
        record = creation.record_of(message)
        identity = StackIdentity(self.stack_id, new.name, new.tenant)
        definition = load_definition(
            self.store, new.raw_template_id, identity, self.services.registry, self.services.budget
        )
        lease = NewLease(self.services.engine_id, self._lease_seconds)
        row = creation.started_row(message, record, str(uuid.uuid4()), lease)
        stack = self.store.create_stack(row)
        self._start(stack, record, definition)
        return stack

    def _swap_and_start(
        self,
        stack: Stack,
        expected: str,
        record: TraversalRecord,
        changes: Any,
        definition: StackDefinition | None,
    ) -> str:
        self.store.acquire_lease(stack.id, self.services.engine_id, self._lease_seconds)
        traversal_id = str(uuid.uuid4())
        stack = self.store.swap_traversal(stack.id, expected, traversal_id, changes)
        self._start(stack, record, definition)
        return traversal_id

    @property
    def _lease_seconds(self) -> float:
        return float(self.services.settings.lease_seconds)

    def _start(
        self, stack: Stack, record: TraversalRecord, definition: StackDefinition | None
    ) -> None:
        self.stack = stack
        traversal_id = stack.current_traversal
        try:
            prepared = prepare(self.services, stack, record, traversal_id, definition)
        except ThermikError as error:
            self._fail_unstarted(stack, record, error)
            return
        except Exception as error:  # a bug: the swapped stack must not stay IN_PROGRESS
            LOG.exception("stack %s: unexpected error preparing the traversal", stack.id)
            self._fail_unstarted(stack, record, Failure.from_exception(error))
            return
        self.plans[traversal_id] = prepared.plan
        options = self._options(stack, record, prepared, definition, elapsed=0.0)
        started = StartTraversal(traversal_id, record.operation, prepared.graph, options)
        # Guarded: the request was accepted (the traversal swapped in), so what goes wrong
        # from here on fails the traversal rather than the request.
        self._guarded(lambda: self.feed(started), started)

    def _options(
        self,
        stack: Stack,
        record: TraversalRecord,
        prepared: Prepared,
        definition: StackDefinition | None,
        *,
        elapsed: float,
    ) -> TraversalOptions:
        """The traversal's options: the hooks the environment sets on its resources; a
        CHECK's say whether it can check everything."""
        options = stack_changes.options(self.services.settings, stack, record, elapsed=elapsed)
        table = hooks.hook_table(self.store, stack, definition, prepared.graph.names)
        if table:
            options = dataclasses.replace(options, hooks=table)
        if record.operation is Action.CHECK:
            checkable = fully_checkable(self.store, self.services.registry, stack)
            options = dataclasses.replace(options, partial_check=not checkable)
        return options

    def _fail_unstarted(
        self, stack: Stack, record: TraversalRecord, error: ThermikError | Failure
    ) -> None:
        state = stack_changes.target_state(record.operation, Status.FAILED)
        reason = f"{state.action.value} failed: {error}"
        self._persist_state(stack.current_traversal, state, reason)
        self._record(stack.current_traversal, state, reason)

    def _cancel(self, message: CancelStack) -> None:
        self.rejection = None
        self.feed(CancelRequested(self.state.traversal_id, message.rollback))
        rejection, self.rejection = self.rejection, None
        if rejection is not None:
            raise InvalidTransition(rejection.message, stack=self.stack_id)

    def _clear_hook(self, message: ClearHook) -> None:
        self.rejection = None
        self.feed(HookCleared(self.state.traversal_id, message.resource_name, message.hook))
        rejection, self.rejection = self.rejection, None
        if rejection is not None:
            raise InvalidBreakPointHook(rejection.message, resource=message.resource_name)

    def _resume(self) -> str | None:
        stack = self.store.get_stack(self.stack_id)
        if stack.status != Status.IN_PROGRESS.value:
            return None
        self.stack = stack
        record = TraversalRecord.from_json(stack.current_deps, Action(stack.action))
        definition = None
        try:
            if record.operation not in EMPTYING:
                definition = definition_of(self.services, stack, stack.raw_template_id)
            prepared = prepare(
                self.services, stack, record, stack.current_traversal, definition, resuming=True
            )
        except ThermikError as error:
            self._fail_unstarted(stack, record, error)
            return stack.current_traversal
        self._resume_prepared(stack, record, prepared, definition)
        return stack.current_traversal

    def _resume_prepared(
        self,
        stack: Stack,
        record: TraversalRecord,
        prepared: Prepared,
        definition: StackDefinition | None,
    ) -> None:
        traversal_id = stack.current_traversal
        self.plans[traversal_id] = prepared.plan
        arrivals = self.store.list_traversal_arrivals(traversal_id)
        elapsed = stack_changes.elapsed(stack)
        options = self._options(stack, record, prepared, definition, elapsed=elapsed)
        waiting: frozenset[tuple[str, str]] = frozenset()
        cleared: frozenset[tuple[str, str]] = frozenset()
        if options.hooks:
            started = started_reason(record.operation)
            waiting, cleared = hooks.recorded_hooks(self.store, stack, started)
        resumed = ResumeTraversal(
            traversal_id,
            record.operation,
            prepared.graph,
            options,
            codec.completed(arrivals),
            prepared.replacements,
            hooks_waiting=waiting,
            hooks_cleared=cleared,
        )
        self._guarded(lambda: self.feed(resumed), resumed)

    def _roll_back(self, stack: Stack, failed: str, expected: str | None) -> str:
        if expected is not None and expected != stack.current_traversal:
            raise TraversalConflict(
                f"stack {stack.id}: traversal {expected} is not current", stack=stack.id
            )
        current = State(Action(stack.action), Status(stack.status))
        check_transition(STACK, current, State(Action.ROLLBACK, Status.IN_PROGRESS))
        template_id = stack.prev_raw_template_id
        if template_id is None:
            template_id = stack_changes.empty_template(self.store, stack)
        definition = definition_of(self.services, stack, template_id)
        record = TraversalRecord(Action.ROLLBACK, stack.raw_template_id)
        changes = stack_changes.rolling_back(record, template_id)
        return self._swap_and_start(stack, failed, record, changes, definition)

    # -- commands -----------------------------------------------------------------------------

    def _execute(self, command: Command) -> None:
        if self._by_type is None:
            self._by_type = self._handlers()
        handler = self._by_type.get(type(command))
        if handler is None:
            LOG.error("stack %s: no handler for %r", self.stack_id, command)
            return
        handler(command)

    def _handlers(self) -> dict[type, Callable[[Any], None]]:
        return {
            DispatchNode: self._dispatch,
            CancelNode: self._cancel_node,
            PersistStackState: self._persist_failed,
            MarkStackComplete: self._mark_complete,
            RecordEvent: self._record_event,
            StartRollback: self._start_rollback,
            CreateReplacementVersion: self._create_replacement,
            ArmTimer: self._arm,
            CloseTraversal: self._close,
            RejectRequest: self._reject,
        }

    def _dispatch(self, command: DispatchNode) -> None:
        message = command.message
        plan = self.plans[message.traversal_id]
        self.services.resources.tell(message.node.version_id, RunNode(message, plan))

    def _cancel_node(self, command: CancelNode) -> None:
        self.services.resources.tell_existing(command.message.node.version_id, command.message)

    def _persist_failed(self, command: PersistStackState) -> None:
        self._persist_state(command.traversal_id, command.state, command.reason)

    def _persist_state(self, traversal_id: str, state: State, reason: str) -> bool:
        changes = stack_changes.settled(state, reason)
        try:
            if state == DELETED:
                # Settled and soft-deleted in one write: nobody sees DELETE_COMPLETE without a
                # deletion time.
                self.store.soft_delete_stack(self.stack_id, traversal_id, changes)
                self.stack = self.store.get_stack(self.stack_id, show_deleted=True)
            else:
                self.stack = self.store.update_stack(self.stack_id, traversal_id, changes)
        except (Conflict, NotFound):
            return False
        if state.status is Status.FAILED:
            stack_changes.snapshot_failed(self.store, self.stack, reason)
        return True

    def _mark_complete(self, command: MarkStackComplete) -> None:
        if not self._persist_state(command.traversal_id, command.state, command.reason):
            return
        assert self.stack is not None
        stack_changes.snapshot_done(self.store, self.stack)
        stack_changes.purge(self.store, self.stack, command.traversal_id, self._forget)
        users = self.services.stack_users
        if users is not None and self.stack.owner_id is None and self.stack.deleted_at:
            # The tree's stack user project, made when one of its resources needed a user.
            root_id = self.stack.id
            self.services.executor.submit(lambda: users.forget_stack(root_id))

    def _forget(self, creds_id: int) -> None:
        """Drop a deleted stack's credentials; undoing a delegation asks the cloud, on the
        executor."""
        release = self.services.release_credentials
        if release is None:
            self.store.delete_user_creds(creds_id)
            return
        store = self.store
        self.services.executor.submit(
            lambda: stack_changes.forget_credentials(store, release, creds_id)
        )

    def _record_event(self, command: RecordEvent) -> None:
        if command.resource_name is None:
            self._record(command.traversal_id, command.state, command.reason)
            return
        stack = self.stack
        if stack is None or command.traversal_id != stack.current_traversal:
            return
        plan = self.plans.get(command.traversal_id)
        known = plan.rows.get(command.version_id) if plan and command.version_id else None
        with contextlib.suppress(NotFound):
            hooks.record_resource_event(self.store, command, known)

    def _record(self, traversal_id: str, state: State, reason: str) -> None:
        stack = self.stack
        if stack is None or traversal_id != stack.current_traversal:
            return
        with contextlib.suppress(NotFound):
            self.store.append_event(stack_changes.stack_event(stack, state, reason))
        observer = self.services.stack_observer
        if observer is not None:
            observer(stack, state, reason)

    def _start_rollback(self, command: StartRollback) -> None:
        def roll_back() -> None:
            try:
                stack = self.store.get_stack(self.stack_id)
                if stack.current_traversal == command.traversal_id:
                    self._roll_back(stack, command.traversal_id, None)
            except ThermikError as error:
                LOG.warning("stack %s: rollback not started: %s", self.stack_id, error)
                self._settle_unrolled(command)

        self.followups.append(roll_back)

    def _settle_unrolled(self, command: StartRollback) -> None:
        """A cancel's rollback did not start: the stack it left IN_PROGRESS becomes FAILED."""
        with contextlib.suppress(ThermikError):
            stack = self.store.get_stack(self.stack_id)
            if stack.current_traversal != command.traversal_id:
                return
            if stack.status != Status.IN_PROGRESS.value:
                return
            state = State(Action(stack.action), Status.FAILED)
            if self._persist_state(command.traversal_id, state, command.reason):
                self._record(command.traversal_id, state, command.reason)

    def _create_replacement(self, command: CreateReplacementVersion) -> None:
        plan = self.plans[command.traversal_id]
        outcome = stack_changes.insert_replacement(self.store, plan, command)
        self.followups.append(lambda: self.feed(outcome))

    def _arm(self, command: ArmTimer) -> None:
        fired: Event = (
            TimeoutFired(command.traversal_id)
            if command.kind is TimerKind.DEADLINE
            else GraceExpired(command.traversal_id)
        )
        handle = self.services.timers.tell_later(command.seconds, self.actor_ref, fired)
        self.timers[command.traversal_id].append(handle)

    def _close(self, command: CloseTraversal) -> None:
        for handle in self.timers.pop(command.traversal_id, []):
            handle.cancel()
        plan = self.plans.pop(command.traversal_id, None)
        if plan is not None:
            plan.closed.set()
        current = self.state.traversal_id
        keep = current if current != command.traversal_id else None
        with contextlib.suppress(NotFound):
            self.store.delete_arrivals(self.stack_id, except_traversal=keep)

    def _reject(self, command: RejectRequest) -> None:
        self.rejection = command.failure
