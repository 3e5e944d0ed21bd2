"""What each operation asks of each node."""

from __future__ import annotations

import pytest

from thermik.engine import operations
from thermik.engine.operations import NodeAction, cleanup_action, update_action
from thermik.engine.states import Action, State, Status

INIT = State.parse("INIT_COMPLETE")
LIVE = State.parse("UPDATE_COMPLETE")
FAILED = State.parse("CREATE_FAILED")


@pytest.mark.parametrize(
    ("operation", "state", "expected"),
    [
        (Action.CREATE, INIT, NodeAction.CREATE),
        (Action.CREATE, LIVE, NodeAction.UPDATE),
        (Action.UPDATE, INIT, NodeAction.CREATE),
        (Action.UPDATE, FAILED, NodeAction.UPDATE),
        (Action.ROLLBACK, LIVE, NodeAction.UPDATE),
        (Action.RESTORE, INIT, NodeAction.CREATE),
        (Action.ADOPT, INIT, NodeAction.ADOPT),
        (Action.ADOPT, LIVE, NodeAction.UPDATE),
        (Action.CHECK, LIVE, NodeAction.CHECK),
        (Action.RESUME, LIVE, NodeAction.RESUME),
        (Action.SNAPSHOT, LIVE, NodeAction.SNAPSHOT),
        (Action.SUSPEND, LIVE, NodeAction.NOOP),
        (Action.DELETE, LIVE, NodeAction.NOOP),
    ],
)
def test_update_actions(operation: Action, state: State, expected: NodeAction) -> None:
    assert update_action(operation, state) is expected


@pytest.mark.parametrize(
    ("operation", "superseded", "expected"),
    [
        (Action.UPDATE, True, NodeAction.DELETE),
        (Action.UPDATE, False, NodeAction.NOOP),
        (Action.DELETE, True, NodeAction.DELETE),
        (Action.ROLLBACK, True, NodeAction.DELETE),
        (Action.ABANDON, True, NodeAction.RETAIN),
        (Action.SUSPEND, True, NodeAction.SUSPEND),
        (Action.CHECK, True, NodeAction.NOOP),
    ],
)
def test_cleanup_actions(operation: Action, superseded: bool, expected: NodeAction) -> None:
    assert cleanup_action(operation, superseded=superseded) is expected


def test_abandon_shows_as_delete() -> None:
    assert operations.stack_state(Action.ABANDON, Status.COMPLETE) == State.parse(
        "DELETE_COMPLETE"
    )
    assert operations.started_reason(Action.ABANDON) == "Stack DELETE started"


def test_reasons_match_heat() -> None:
    assert operations.completed_reason(Action.CREATE) == "Stack CREATE completed successfully"
    assert operations.cancelled_reason(Action.UPDATE) == "Stack UPDATE cancelled"
    assert operations.failed_reason(Action.UPDATE, "x: y") == "Resource UPDATE failed: x: y"
