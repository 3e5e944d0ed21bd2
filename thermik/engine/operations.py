"""What each operation means for the stack and for each node: the per-operation rules in one place.

An *operation* is the :class:`~thermik.engine.states.Action` a traversal performs (create,
update, delete, rollback, check, suspend, resume, snapshot, restore, adopt, abandon). It decides
the stack action shown to users, whether a failure rolls back, and, per node, the
:class:`NodeAction` the resource actor performs.
"""

from __future__ import annotations

import enum

from thermik.engine.states import Action, State, Status

#: Operations that go back to the previous template when they fail (unless disabled).
ROLLS_BACK = frozenset({Action.CREATE, Action.ADOPT, Action.UPDATE, Action.RESTORE})
#: Operations a user may not cancel: deletes run to the end.
UNCANCELLABLE = frozenset({Action.DELETE, Action.ABANDON})


class NodeAction(enum.Enum):
    """What a resource actor does for one dispatched node.

    The engine decides from the version's state when the graph was built; a resource actor that
    finds its row has moved on since (e.g. CREATE on a version a superseded traversal finished
    creating) converges from the row it finds: CREATE on a created version behaves as UPDATE.
    """

    #: Create the physical resource of a never-created (INIT) version.
    CREATE = "CREATE"
    #: Take over an existing physical resource for an INIT version (adopt data in the message).
    ADOPT = "ADOPT"
    #: Converge a live version to the new definition: no change, update in place, or reply
    #: ``ResourceNeedsReplacement`` (always so for a FAILED version, unless its plugin can
    #: update it in place). On ROLLBACK a version with ``replaced_by`` set restores itself.
    UPDATE = "UPDATE"
    #: Observe the physical resource and report.
    CHECK = "CHECK"
    SUSPEND = "SUSPEND"
    RESUME = "RESUME"
    #: Record snapshot data for the version.
    SNAPSHOT = "SNAPSHOT"
    #: Delete the physical resource (honouring the deletion policy), then the row. An INIT
    #: version has no physical resource: only its row is dropped.
    DELETE = "DELETE"
    #: Forget the version without touching the physical resource (abandon).
    RETAIN = "RETAIN"
    #: Nothing to do. Cleanup no-ops are resolved inside the engine and never dispatched.
    NOOP = "NOOP"


def stack_action(operation: Action) -> Action:
    """The stack action users see for ``operation`` (an abandon shows as DELETE, as in Heat)."""
    return Action.DELETE if operation is Action.ABANDON else operation


def stack_state(operation: Action, status: Status) -> State:
    """The stack state for ``operation`` at ``status``."""
    return State(stack_action(operation), status)


def update_action(operation: Action, state: State) -> NodeAction:
    """What an update node does for a version in ``state`` during ``operation``."""
    never_created = state.action is Action.INIT
    if operation in (Action.CREATE, Action.UPDATE, Action.ROLLBACK, Action.RESTORE):
        return NodeAction.CREATE if never_created else NodeAction.UPDATE
    if operation is Action.ADOPT:
        return NodeAction.ADOPT if never_created else NodeAction.UPDATE
    if operation is Action.CHECK:
        return NodeAction.CHECK
    if operation is Action.RESUME:
        return NodeAction.RESUME
    if operation is Action.SNAPSHOT:
        return NodeAction.SNAPSHOT
    return NodeAction.NOOP


def cleanup_action(operation: Action, *, superseded: bool) -> NodeAction:
    """What a cleanup node does during ``operation``.

    Args:
        operation: the traversal's operation.
        superseded: whether the version is not converged by this traversal (it has no update
            node, or it was replaced during the traversal).
    """
    if operation is Action.SUSPEND:
        return NodeAction.SUSPEND
    if operation in (Action.CHECK, Action.RESUME, Action.SNAPSHOT):
        return NodeAction.NOOP
    if not superseded:
        return NodeAction.NOOP
    if operation is Action.ABANDON:
        return NodeAction.RETAIN
    return NodeAction.DELETE


def started_reason(operation: Action) -> str:
    """Heat's stack status reason when a traversal starts."""
    return f"Stack {stack_action(operation).value} started"


def completed_reason(operation: Action) -> str:
    """Heat's stack status reason when a traversal completes."""
    return f"Stack {stack_action(operation).value} completed successfully"


def cancelled_reason(operation: Action) -> str:
    """Heat's stack status reason when a user cancels."""
    return f"Stack {stack_action(operation).value} cancelled"


def failed_reason(operation: Action, detail: str) -> str:
    """Heat's stack status reason when a resource fails: ``Resource CREATE failed: ...``."""
    return f"Resource {stack_action(operation).value} failed: {detail}"


TIMED_OUT = "Timed out"
#: What Heat appends to a CHECK's outcome when some resource could not be checked.
PARTIAL_CHECK = ". 'CHECK' not fully supported (see resources)"
#: Why running resource actions are stopped when a user cancels or a new operation retires
#: the traversal (Heat's ``CancelOperation`` text).
USER_CANCEL = "user triggered cancel"


#: Heat's breakpoint hook names, by (moment, node action word).
_HOOKED_ACTIONS = {
    NodeAction.CREATE: Action.CREATE,
    NodeAction.UPDATE: Action.UPDATE,
    NodeAction.DELETE: Action.DELETE,
    NodeAction.RETAIN: Action.DELETE,
}


def hook_for(operation: Action, action: NodeAction, moment: str) -> str | None:
    """The breakpoint hook (``pre-create`` ... ``post-delete``) a node doing ``action`` during
    ``operation`` stops at, ``moment`` being ``pre`` or ``post``; ``None`` for none.

    As Heat: an update stops at its update hooks during any operation; a create only during
    a stack CREATE and a delete only during a stack DELETE (a resource created or deleted by
    an update, or a replacement, stops at the update's hooks alone).
    """
    hooked = _HOOKED_ACTIONS.get(action)
    if hooked is None:
        return None
    if hooked is not Action.UPDATE and hooked is not operation:
        return None
    return f"{moment}-{hooked.value.lower()}"


def paused_reason(hook: str) -> str:
    """Heat's event reason when a resource stops at ``hook``."""
    return f"{hook.split('-', 1)[1].upper()} paused until Hook {hook} is cleared"


def hook_cleared_reason(hook: str) -> str:
    """Heat's event reason when ``hook`` is cleared by a signal."""
    return f"Hook {hook} is cleared"


#: Heat's event reason for a resource whose wait at a hook ended by a failure (timeout,
#: cancel, another resource's failure).
WAIT_ENDED = "Failure occurred while waiting."
