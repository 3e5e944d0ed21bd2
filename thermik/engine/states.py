"""Actions, statuses and the legal state transitions of stacks and resource versions.

A state is Heat's pair ``<ACTION>_<STATUS>`` (``CREATE_IN_PROGRESS``, ``UPDATE_FAILED``, ...); the
strings are what the REST API, the events and python-heatclient show, so they must not change.

Legal transitions are data: one row per edge in :data:`_STACK_ROWS` and :data:`_RESOURCE_ROWS`,
expanded into the frozensets :data:`STACK.edges` and :data:`RESOURCE.edges`. A row is
``(from actions, from statuses, to action, to status)`` where a ``to action`` of ``None`` means
"the same action" (an action finishing). :func:`check_transition` is the one place that raises
:class:`~thermik.errors.InvalidTransition`; the shells call it before they compare-and-swap a stack
or resource row into a new state. The decision functions never raise; they use
:meth:`StateMachine.allows`.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable

from thermik import errors


class Action(enum.Enum):
    """What a stack, a resource version or a traversal is doing (Heat's action names)."""

    INIT = "INIT"
    CREATE = "CREATE"
    DELETE = "DELETE"
    UPDATE = "UPDATE"
    ROLLBACK = "ROLLBACK"
    SUSPEND = "SUSPEND"
    RESUME = "RESUME"
    ADOPT = "ADOPT"
    SNAPSHOT = "SNAPSHOT"
    CHECK = "CHECK"
    RESTORE = "RESTORE"
    ABANDON = "ABANDON"


class Status(enum.Enum):
    """How far the action has got."""

    IN_PROGRESS = "IN_PROGRESS"
    FAILED = "FAILED"
    COMPLETE = "COMPLETE"


@dataclasses.dataclass(frozen=True, slots=True)
class State:
    """An (action, status) pair; ``str()`` gives Heat's ``CREATE_COMPLETE`` form."""

    action: Action
    status: Status

    def __str__(self) -> str:
        return f"{self.action.value}_{self.status.value}"

    @property
    def settled(self) -> bool:
        """Whether the action is over (COMPLETE or FAILED)."""
        return self.status is not Status.IN_PROGRESS

    @classmethod
    def parse(cls, text: str) -> State:
        """Read Heat's ``<ACTION>_<STATUS>`` form, e.g. from a stored row or an API filter."""
        state = _BY_NAME.get(text)
        if state is None:
            raise errors.InvalidRequest(f"unknown state {text!r}", parameter="status")
        return state


_BY_NAME = {str(State(a, s)): State(a, s) for a in Action for s in Status}

#: Every state string, in a stable order (actions, then statuses, as declared).
ALL_STATES: tuple[str, ...] = tuple(_BY_NAME)

INIT_COMPLETE = State(Action.INIT, Status.COMPLETE)

_A = Action
_S = Status
_IN_PROGRESS = frozenset({Status.IN_PROGRESS})
_COMPLETE = frozenset({Status.COMPLETE})
_FAILED = frozenset({Status.FAILED})
_SETTLED = frozenset({Status.COMPLETE, Status.FAILED})
_ANY = frozenset(Status)

# Stacks never carry ABANDON (an abandon is a DELETE that retains resources, as in Heat) and
# INIT only before their first traversal.
_STACK_ACTIONS = frozenset(Action) - {Action.ABANDON}
_STACK_RUNNING = _STACK_ACTIONS - {Action.INIT}
# A stack that exists, is not being deleted and is not suspended.
_STACK_LIVE = _STACK_ACTIONS - {Action.INIT, Action.DELETE, Action.SUSPEND}
# Resource versions are only ever created, adopted, updated, deleted, checked, suspended,
# resumed or snapshotted; rollback and restore converge them with CREATE/UPDATE/DELETE.
_RESOURCE_ACTIONS = frozenset(
    {_A.INIT, _A.CREATE, _A.ADOPT, _A.UPDATE, _A.DELETE}
    | {_A.CHECK, _A.SUSPEND, _A.RESUME, _A.SNAPSHOT}
)
_RESOURCE_LIVE = _RESOURCE_ACTIONS - {Action.INIT, Action.DELETE}

_Row = tuple[frozenset[Action], frozenset[Status], Action | None, Status]

_STACK_ROWS: tuple[_Row, ...] = (
    # A stored, new stack runs its first traversal.
    (frozenset({_A.INIT}), _COMPLETE, _A.CREATE, _S.IN_PROGRESS),
    # A new stack may take over existing physical resources instead of creating them.
    (frozenset({_A.INIT}), _COMPLETE, _A.ADOPT, _S.IN_PROGRESS),
    # The traversal reached every root.
    (_STACK_RUNNING, _IN_PROGRESS, None, _S.COMPLETE),
    # A resource failed, the deadline passed, or the user cancelled.
    (_STACK_RUNNING, _IN_PROGRESS, None, _S.FAILED),
    # An update starts from any live state, and supersedes one in progress (no stack lock).
    (_STACK_LIVE, _ANY, _A.UPDATE, _S.IN_PROGRESS),
    # A failed create/adopt/update/restore goes back to the previous template unless disabled.
    (
        frozenset({_A.CREATE, _A.ADOPT, _A.UPDATE, _A.RESTORE}),
        _FAILED,
        _A.ROLLBACK,
        _S.IN_PROGRESS,
    ),
    # A cancel with rollback rolls back what runs at once (as Heat's convergence engine).
    (
        frozenset({_A.CREATE, _A.ADOPT, _A.UPDATE, _A.RESTORE}),
        _IN_PROGRESS,
        _A.ROLLBACK,
        _S.IN_PROGRESS,
    ),
    # Delete works from any state, stopping whatever runs; ABANDON uses the same edges.
    (_STACK_ACTIONS - {_A.DELETE}, _ANY, _A.DELETE, _S.IN_PROGRESS),
    # A failed or stuck delete (dead engine) may be retried.
    (frozenset({_A.DELETE}), _IN_PROGRESS | _FAILED, _A.DELETE, _S.IN_PROGRESS),
    # Checking observes a settled stack, suspended or not.
    (_STACK_LIVE | {_A.SUSPEND}, _SETTLED, _A.CHECK, _S.IN_PROGRESS),
    # Only a stack whose last action succeeded is suspended.
    (_STACK_LIVE, _COMPLETE, _A.SUSPEND, _S.IN_PROGRESS),
    # A failed suspend may be retried.
    (frozenset({_A.SUSPEND}), _FAILED, _A.SUSPEND, _S.IN_PROGRESS),
    # Resume undoes a suspend, complete or half done.
    (frozenset({_A.SUSPEND}), _SETTLED, _A.RESUME, _S.IN_PROGRESS),
    # A failed resume may be retried.
    (frozenset({_A.RESUME}), _FAILED, _A.RESUME, _S.IN_PROGRESS),
    # A snapshot is taken of any settled stack.
    (_STACK_LIVE | {_A.SUSPEND}, _SETTLED, _A.SNAPSHOT, _S.IN_PROGRESS),
    # Restore converges a settled, live stack to a snapshot's template and data.
    (_STACK_LIVE, _SETTLED, _A.RESTORE, _S.IN_PROGRESS),
)

_RESOURCE_ROWS: tuple[_Row, ...] = (
    # A version row is inserted as INIT_COMPLETE and then created for the first time.
    (frozenset({_A.INIT}), _COMPLETE, _A.CREATE, _S.IN_PROGRESS),
    # ... or adopted, taking over an existing physical resource.
    (frozenset({_A.INIT}), _COMPLETE, _A.ADOPT, _S.IN_PROGRESS),
    # The plugin finished.
    (_RESOURCE_ACTIONS - {_A.INIT}, _IN_PROGRESS, None, _S.COMPLETE),
    # The plugin failed, was cancelled, or its engine died (the lock is stolen).
    (_RESOURCE_ACTIONS - {_A.INIT}, _IN_PROGRESS, None, _S.FAILED),
    # A live version is updated in place (a FAILED one only if its plugin says it can be).
    (_RESOURCE_LIVE, _SETTLED, _A.UPDATE, _S.IN_PROGRESS),
    # Cleanup deletes a settled version that is no longer wanted; INIT rows are just dropped.
    (_RESOURCE_ACTIONS - {_A.DELETE}, _SETTLED, _A.DELETE, _S.IN_PROGRESS),
    # A failed delete is retried by the next traversal's cleanup.
    (frozenset({_A.DELETE}), _FAILED, _A.DELETE, _S.IN_PROGRESS),
    # A check observes any version that exists.
    (_RESOURCE_LIVE, _SETTLED, _A.CHECK, _S.IN_PROGRESS),
    # Suspend a version whose last action succeeded.
    (_RESOURCE_LIVE - {_A.SUSPEND}, _COMPLETE, _A.SUSPEND, _S.IN_PROGRESS),
    # A failed suspend is retried.
    (frozenset({_A.SUSPEND}), _FAILED, _A.SUSPEND, _S.IN_PROGRESS),
    # Resume a suspended (or half-suspended) version.
    (frozenset({_A.SUSPEND}), _SETTLED, _A.RESUME, _S.IN_PROGRESS),
    # A failed resume is retried.
    (frozenset({_A.RESUME}), _FAILED, _A.RESUME, _S.IN_PROGRESS),
    # Snapshot data is taken of any settled, existing version.
    (_RESOURCE_LIVE, _SETTLED, _A.SNAPSHOT, _S.IN_PROGRESS),
)


def _expand(rows: Iterable[_Row]) -> frozenset[tuple[State, State]]:
    return frozenset(
        (State(action, status), State(to_action or action, to_status))
        for actions, statuses, to_action, to_status in rows
        for action in actions
        for status in statuses
    )


@dataclasses.dataclass(frozen=True, slots=True)
class StateMachine:
    """The legal transitions of one kind of thing (``stack`` or ``resource``)."""

    kind: str
    edges: frozenset[tuple[State, State]]

    def allows(self, current: State, target: State) -> bool:
        """Whether ``current -> target`` is a legal edge."""
        return (current, target) in self.edges

    def targets(self, current: State) -> frozenset[State]:
        """Every state reachable from ``current`` in one step."""
        return frozenset(to for frm, to in self.edges if frm == current)


STACK = StateMachine("stack", _expand(_STACK_ROWS))
RESOURCE = StateMachine("resource", _expand(_RESOURCE_ROWS))


def check_transition(
    machine: StateMachine,
    current: State,
    target: State,
    *,
    stack: str | None = None,
    resource: str | None = None,
) -> None:
    """Raise :class:`~thermik.errors.InvalidTransition` unless ``current -> target`` is legal.

    Args:
        machine: :data:`STACK` or :data:`RESOURCE`.
        current: the state stored now.
        target: the state about to be stored.
        stack: the stack's name, for the error.
        resource: the resource's name, for the error.
    """
    if machine.allows(current, target):
        return
    raise errors.InvalidTransition(
        f"{machine.kind} cannot go from {current} to {target}",
        path=("resources", resource) if resource else (),
        stack=stack,
        resource=resource,
    )
