"""Stack actions: suspend, resume, check, and cancelling the running create or update.

Suspend, resume and check are traversals like any other; they start only from a settled stack
(Heat's "already has an action in progress"), and the runtime refuses transitions its state
table does not allow. Cancelling is legal only while the operation it cancels runs.
"""

from __future__ import annotations

from thermik.actors.runtime import ConvergeRequest
from thermik.api.boundary import RequestContext, StackAction, StackIdentity
from thermik.engine.states import STACK, Action, State, Status
from thermik.errors import InvalidTransition
from thermik.orchestration.base import Base
from thermik.persistence.values import Stack

_TRAVERSALS = {
    StackAction.SUSPEND: Action.SUSPEND,
    StackAction.RESUME: Action.RESUME,
    StackAction.CHECK: Action.CHECK,
}
#: How the refusal of an action names it.
_DONE = {
    StackAction.SUSPEND: "suspended",
    StackAction.RESUME: "resumed (only a suspended stack is)",
    StackAction.CHECK: "checked",
}
#: Cancel action -> (stack actions it may cancel, whether it rolls back).
_CANCELS = {
    StackAction.CANCEL_UPDATE: (("UPDATE",), True),
    StackAction.CANCEL_WITHOUT_ROLLBACK: (("CREATE", "UPDATE"), False),
}


def check_settled(stack: Stack) -> None:
    """Refuse to start an operation on a stack whose operation still runs."""
    if stack.status == "IN_PROGRESS":
        raise InvalidTransition(
            f"Stack {stack.name} already has an action ({stack.action}) in progress.",
            stack=stack.name,
        )


class ActionOperations(Base):
    """``POST /stacks/{name}/{id}/actions``."""

    def stack_action(self, ctx: RequestContext, stack: StackIdentity, action: StackAction) -> None:
        row = self.find_stack(ctx, stack, live=True)
        if action in _CANCELS:
            actions, rollback = _CANCELS[action]
            if row.status != "IN_PROGRESS" or row.action not in actions:
                raise InvalidTransition(
                    f"Cancelling {'update' if rollback else 'the operation'} when stack is "
                    f"{row.action}_{row.status} is not supported",
                    stack=row.name,
                )
            elsewhere = self.driven_elsewhere(row)
            if elsewhere is not None:
                raise elsewhere
            self.runtime.cancel(row.id, rollback=rollback)
            return
        check_settled(row)
        current = State(Action(row.action), Status(row.status))
        if not STACK.allows(current, State(_TRAVERSALS[action], Status.IN_PROGRESS)):
            raise InvalidTransition(
                f"Stack {row.name} is {row.action}_{row.status}: it cannot be {_DONE[action]}",
                stack=row.name,
            )
        self.runtime.converge(
            ConvergeRequest(
                stack_id=row.id,
                operation=_TRAVERSALS[action],
                expected_traversal=row.current_traversal,
            )
        )
