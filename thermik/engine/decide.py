"""The decision function of the convergence core: ``decide(state, event) -> Decision``.

This is the whole convergence algorithm, pure: no I/O, no clock, no threads. A StackActor (the
pykka shell) keeps one :class:`~thermik.engine.traversal.TraversalState` (starting from
``TraversalState.idle()``) and, for every event, does::

    decision = decide(state, event)
    state = decision.state
    for command in decision.commands:   # in order
        execute(command)

``decide`` never raises: illegal requests become ``RejectRequest`` commands, and a bug inside it
becomes a FAILED stack with the error as the reason.

Events the shell feeds (see :mod:`thermik.engine.messages`):

* ``StartTraversal`` after it compare-and-swapped ``stack.current_traversal`` and built the graph
  (:func:`~thermik.engine.graph.graph_for`); also for the rollback asked by ``StartRollback``.
  Starting a traversal supersedes the previous one: its replies are ignored from then on, and
  for a delete or abandon its running nodes are cancelled.
* ``ResumeTraversal`` after a restart or a takeover, with the stored join records.
* ``ResourceDone`` / ``ResourceFailed`` / ``ResourceNeedsReplacement`` from resource actors.
* ``ReplacementCreated`` (or ``ResourceFailed``) after executing ``CreateReplacementVersion``.
* ``TimeoutFired`` / ``GraceExpired`` when the timers from ``ArmTimer`` fire.
* ``CancelRequested`` from the API; ``Supersede`` when the stack row shows a newer traversal.
* ``HookCleared`` when a signal ``{"unset_hook": ...}`` arrives for a resource.
* ``ShellFault`` when executing commands failed unexpectedly: the traversal fails.

Commands the shell executes: ``DispatchNode`` and ``CancelNode`` (tell the resource actor of the
node's version), ``PersistNodeResult``, ``PersistStackState``, ``MarkStackComplete``,
``RecordEvent``, ``CreateReplacementVersion``, ``StartRollback``, ``ArmTimer``, ``CloseTraversal``
and ``RejectRequest``; each class documents what executing it means.

Rules, after Heat's convergence (``reference/heat-study.md`` §2) without its weak spots (§6):
all ready leaves are dispatched at once up to the concurrency limit; a node is dispatched when
all its predecessors finished, exactly once; a failure marks the stack FAILED, stops new
dispatches (running nodes finish) and rolls back create/adopt/update/restore unless
``disable_rollback``; a CHECK records failures and carries on; the deadline is a timer, so a lost
message still ends in FAILED; cancel reaches running nodes with a grace period. A node whose
resource has a breakpoint hook in the environment stops before (``pre-*``) or after
(``post-*``) its action, with Heat's events, until ``HookCleared``; a failure, the deadline or a
cancel ends every such wait ("Failure occurred while waiting.").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, cast

from immutables import Map

from thermik.engine.graph import Node
from thermik.engine.messages import (
    ArmTimer,
    CancelNode,
    CancelRequested,
    CancelResource,
    CloseTraversal,
    Command,
    CreateReplacementVersion,
    Event,
    GraceExpired,
    HookCleared,
    PersistNodeResult,
    RecordEvent,
    RejectRequest,
    ReplacementCreated,
    ResourceDone,
    ResourceFailed,
    ResourceNeedsReplacement,
    ResumeTraversal,
    ShellFault,
    StartTraversal,
    Supersede,
    TimeoutFired,
    TimerKind,
)
from thermik.engine.operations import (
    ROLLS_BACK,
    TIMED_OUT,
    UNCANCELLABLE,
    USER_CANCEL,
    cancelled_reason,
    failed_reason,
    hook_cleared_reason,
    stack_state,
    started_reason,
)
from thermik.engine.states import Action, Status
from thermik.engine.step import Step
from thermik.engine.traversal import Decision, Phase, TraversalState
from thermik.errors import Failure, InvalidBreakPointHook, InvalidTransition, PluginError

#: Operations whose update nodes may be replaced by a new version.
_REPLACEABLE = frozenset(
    {Action.CREATE, Action.ADOPT, Action.UPDATE, Action.ROLLBACK, Action.RESTORE}
)


def decide(state: TraversalState, event: Event) -> Decision:
    """Apply ``event`` to ``state``: the new state and the commands to execute, in order."""
    handler = _HANDLERS.get(type(event))
    if handler is None:
        return Decision(state, ())
    try:
        return handler(state, event)
    except Exception as exc:  # the core must not raise: a bug becomes a failure
        return _internal_error(state, event, exc)


def _ignore(state: TraversalState) -> Decision:
    return Decision(state, ())


def _rolls_back(state: TraversalState) -> bool:
    return state.operation in ROLLS_BACK and not state.options.disable_rollback


# -- starting ------------------------------------------------------------------------------------


def _retire(state: TraversalState, operation: Action) -> list[Command]:
    """Commands that end ``state``'s traversal because a new one starts."""
    if state.closed:
        return []
    commands: list[Command] = []
    if operation in UNCANCELLABLE:
        grace = state.options.cancel_grace_seconds
        commands.extend(
            CancelNode(CancelResource(node, state.traversal_id, grace, USER_CANCEL))
            for node in state.running_nodes
        )
    commands.append(CloseTraversal(state.traversal_id))
    return commands


def _begin(step: Step, leaves: tuple[int, ...]) -> Decision:
    timeout = step.state.options.timeout_seconds
    if timeout is not None:
        step.commands.append(ArmTimer(step.tid, TimerKind.DEADLINE, timeout))
    step.make_ready(list(leaves))
    step.fill()
    step.check_complete()
    return step.decision()


def _start(state: TraversalState, event: StartTraversal) -> Decision:
    if event.traversal_id == state.traversal_id:
        return _ignore(state)
    commands = _retire(state, event.operation)
    fresh = TraversalState.fresh(event.traversal_id, event.operation, event.graph, event.options)
    reason = started_reason(event.operation)
    in_progress = stack_state(event.operation, Status.IN_PROGRESS)
    commands.append(RecordEvent(event.traversal_id, in_progress, reason))
    step = Step(fresh, commands)
    step.reason = reason
    return _begin(step, event.graph.leaf_indices)


def _resume(state: TraversalState, event: ResumeTraversal) -> Decision:
    if event.traversal_id == state.traversal_id and not state.closed:
        return _ignore(state)
    commands = _retire(state, event.operation) if event.traversal_id != state.traversal_id else []
    fresh = TraversalState.fresh(event.traversal_id, event.operation, event.graph, event.options)
    index = event.graph.index
    serving = {
        new: index[Node(old, True)]
        for old, new in event.replacements.items()
        if Node(old, True) in index
    }
    fresh = dataclasses.replace(
        fresh,
        served_by=Map(event.replacements),
        serving=Map(serving),
        hooks_recorded=event.hooks_waiting,
        hooks_passed=event.hooks_cleared,
    )
    step = Step(fresh, commands)
    step.recorded = dict(event.completed)
    return _begin(step, event.graph.leaf_indices)


# -- replies from resource actors ---------------------------------------------------------------


def _running_slot(
    state: TraversalState, node: Node, traversal_id: str, *, awaiting: bool = False
) -> int | None:
    """The slot a reply is about, if it is for this traversal and that node is running.

    With ``awaiting``, also a slot whose replacement version is being inserted (only a failure
    can be reported for it: the shell could not insert the row).
    """
    if traversal_id != state.traversal_id or state.phase is Phase.IDLE:
        return None
    slot = state.slot_of(node)
    if slot is None:
        return None
    sent = state.running.get(slot, _MISSING)
    if sent == node or (awaiting and sent is None and state.node_at(slot) == node):
        return slot
    return None


_MISSING: Any = object()


def _settle(state: TraversalState, slot: int) -> Step:
    step = Step(state)
    del step.running[slot]
    return step


def _done(state: TraversalState, event: ResourceDone) -> Decision:
    slot = _running_slot(state, event.node, event.traversal_id)
    if slot is None:
        return _ignore(state)
    step = _settle(state, slot)
    if state.phase is not Phase.RUNNING:
        step.check_drained()
        return step.decision()
    step.commands.append(
        PersistNodeResult(
            state.traversal_id,
            state.node_at(slot),
            event.node,
            event.node_data,
            recorded=event.recorded,
        )
    )
    # As Heat: an update that changed nothing returns before its post-update hook.
    if not (event.acted and step.stop_at_hook(slot, after=True, data=event.node_data)):
        step.complete(slot, event.node_data)
    step.fill()
    step.check_complete()
    return step.decision()


def _failed(state: TraversalState, event: ResourceFailed) -> Decision:
    slot = _running_slot(state, event.node, event.traversal_id, awaiting=True)
    if slot is None:
        return _ignore(state)
    return _fail_slot(state, slot, event.failure)


def _fail_slot(state: TraversalState, slot: int, failure: Failure) -> Decision:
    step = _settle(state, slot)
    if state.phase is not Phase.RUNNING:
        step.check_drained()
        return step.decision()
    step.failures = (*state.failures, (state.name_at(slot), failure))
    if state.operation is Action.CHECK:
        step.complete(slot, None)
        step.fill()
        step.check_complete()
        return step.decision()
    reason = failed_reason(state.operation, str(failure))
    step.fail(reason, rollback=_rolls_back(state), cancel=None)
    return step.decision()


def _needs_replacement(state: TraversalState, event: ResourceNeedsReplacement) -> Decision:
    slot = _running_slot(state, event.node, event.traversal_id)
    if slot is None:
        return _ignore(state)
    if state.phase is not Phase.RUNNING:
        step = _settle(state, slot)
        step.check_drained()
        return step.decision()
    name = state.name_at(slot)
    node = event.node
    if (
        not node.is_update
        or node.version_id in state.serving
        or state.operation not in _REPLACEABLE
    ):
        why = f"{name} needs replacement, which {state.operation.value} cannot do"
        detail = f"{why}: {event.reason}" if event.reason else why
        failure = Failure.from_exception(PluginError(detail, resource=name))
        return _fail_slot(state, slot, failure.of_resource(name))
    step = Step(state)
    step.running[slot] = None
    requires = frozenset(data.version_id for data in step.input_for(slot).values())
    step.commands.append(
        CreateReplacementVersion(state.traversal_id, node, name, node.version_id, requires)
    )
    return step.decision()


def _replacement_created(state: TraversalState, event: ReplacementCreated) -> Decision:
    slot = state.graph.index.get(event.node)
    if (
        event.traversal_id != state.traversal_id
        or slot is None
        or state.running.get(slot, _MISSING) is not None
    ):
        return _ignore(state)
    if state.phase is not Phase.RUNNING:
        step = _settle(state, slot)
        step.check_drained()
        return step.decision()
    step = Step(state)
    step.served_by = state.served_by.set(event.node.version_id, event.replacement)
    step.serving = state.serving.set(event.replacement, slot)
    step.dispatch(slot)
    return step.decision()


# -- timers, cancel, supersede ------------------------------------------------------------------


def _timeout(state: TraversalState, event: TimeoutFired) -> Decision:
    if event.traversal_id != state.traversal_id or state.closed:
        return _ignore(state)
    step = Step(state)
    if state.phase is Phase.RUNNING:
        step.fail(TIMED_OUT, rollback=_rolls_back(state), cancel=TIMED_OUT)
    elif state.phase is Phase.FAILED and not state.cancelled:
        step.cancel_running(TIMED_OUT)
    return step.decision()


def _grace_expired(state: TraversalState, event: GraceExpired) -> Decision:
    if event.traversal_id != state.traversal_id or state.phase is not Phase.FAILED:
        return _ignore(state)
    step = Step(state)
    step.close()
    return step.decision()


def _cancel(state: TraversalState, event: CancelRequested) -> Decision:
    operation = state.operation.value
    problem = None
    if event.traversal_id != state.traversal_id or state.phase is not Phase.RUNNING:
        problem = "no operation in progress to cancel"
    elif state.operation in UNCANCELLABLE:
        problem = f"a stack {operation} cannot be cancelled"
    elif event.rollback and state.operation not in ROLLS_BACK:
        problem = f"a stack {operation} cannot be cancelled with rollback"
    if problem is not None:
        failure = Failure.from_exception(InvalidTransition(problem))
        return Decision(state, (RejectRequest(event.traversal_id, failure),))
    step = Step(state)
    # As Heat's convergence engine, a cancel with rollback starts the rollback at once: the
    # stack goes from <ACTION>_IN_PROGRESS to ROLLBACK_IN_PROGRESS, never <ACTION>_FAILED.
    reason = cancelled_reason(state.operation)
    rollback = event.rollback
    step.fail(reason, rollback=rollback, cancel=USER_CANCEL, record=not rollback)
    return step.decision()


def _hook_cleared(state: TraversalState, event: HookCleared) -> Decision:
    key = (event.name, event.hook)
    wait = state.paused.get(key) if event.traversal_id == state.traversal_id else None
    if wait is None or state.phase is not Phase.RUNNING:
        problem = f'The "{event.hook}" hook is not defined on {event.name}'
        failure = Failure.from_exception(InvalidBreakPointHook(problem, resource=event.name))
        return Decision(state, (RejectRequest(event.traversal_id, failure),))
    step = Step(state)
    step.paused = state.paused.delete(key)
    version_id = step.node_at(wait.slot).version_id
    reason = hook_cleared_reason(event.hook)
    cleared = RecordEvent(state.traversal_id, wait.state, reason, event.name, version_id)
    step.commands.append(cleared)
    if wait.after:
        step.complete(wait.slot, wait.data)
    else:
        step.dispatch(wait.slot, hooks=False)
    step.fill()
    step.check_complete()
    return step.decision()


def _supersede(state: TraversalState, event: Supersede) -> Decision:
    if event.traversal_id != state.traversal_id or state.phase is Phase.IDLE:
        return _ignore(state)
    step = Step(state)
    step.phase = Phase.SUPERSEDED
    step.close()
    return step.decision()


def _internal_error(state: TraversalState, event: Event, exc: Exception) -> Decision:
    failure = Failure.from_exception(exc)
    if state.phase is not Phase.RUNNING:
        return Decision(state, (RejectRequest(getattr(event, "traversal_id", ""), failure),))
    return _engine_failed(state, failure)


def _shell_fault(state: TraversalState, event: ShellFault) -> Decision:
    if event.traversal_id != state.traversal_id or state.phase is not Phase.RUNNING:
        return _ignore(state)
    return _engine_failed(state, event.failure)


def _engine_failed(state: TraversalState, failure: Failure) -> Decision:
    """Fail the running traversal for an engine error (no rollback: the engine is suspect)."""
    step = Step(state)
    step.failures = (*state.failures, ("", failure))
    step.fail(f"Engine error: {failure}", rollback=False, cancel=USER_CANCEL)
    return step.decision()


_HANDLERS = cast(
    "dict[type, Callable[[TraversalState, Any], Decision]]",
    {
        StartTraversal: _start,
        ResumeTraversal: _resume,
        ResourceDone: _done,
        ResourceFailed: _failed,
        ResourceNeedsReplacement: _needs_replacement,
        ReplacementCreated: _replacement_created,
        TimeoutFired: _timeout,
        GraceExpired: _grace_expired,
        CancelRequested: _cancel,
        HookCleared: _hook_cleared,
        Supersede: _supersede,
        ShellFault: _shell_fault,
    },
)
