"""Heat's stack notifications: event types and payload."""

from __future__ import annotations

import datetime

import pytest

from thermik.engine.states import Action, State, Status
from thermik.persistence.values import Stack
from thermik.rpc.notifications import event_type, payload

CREATED = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)


def stack() -> Stack:
    return Stack(
        id="5c8a-id",
        name="web",
        tenant="proj",
        username="alice",
        raw_template_id=1,
        prev_raw_template_id=None,
        user_creds_id=None,
        owner_id=None,
        root_id="5c8a-id",
        parent_resource_name=None,
        nested_depth=0,
        stack_user_project_id=None,
        timeout_mins=None,
        disable_rollback=True,
        action="CREATE",
        status="IN_PROGRESS",
        status_reason="",
        current_traversal="t",
        current_deps=None,
        traversal_started_at=None,
        created_at=CREATED,
        updated_at=None,
        deleted_at=None,
        tags=("a",),
    )


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        (State(Action.CREATE, Status.IN_PROGRESS), ("orchestration.stack.create.start", False)),
        (State(Action.UPDATE, Status.COMPLETE), ("orchestration.stack.update.end", False)),
        (State(Action.DELETE, Status.FAILED), ("orchestration.stack.delete.error", True)),
        (State(Action.ROLLBACK, Status.COMPLETE), ("orchestration.stack.rollback.end", False)),
        (State(Action.SUSPEND, Status.IN_PROGRESS), ("orchestration.stack.suspend.start", False)),
    ],
)
def test_event_types_are_heats(state: State, expected: tuple[str, bool]) -> None:
    assert event_type(state) == expected


def test_the_payload_is_heats() -> None:
    body = payload(stack(), State(Action.CREATE, Status.COMPLETE), "Stack CREATE completed")
    assert body == {
        "tenant_id": "proj",
        "user_id": "alice",
        "user_identity": "alice",
        "stack_identity": "arn:openstack:heat::proj:stacks/web/5c8a-id",
        "stack_name": "web",
        "state": "CREATE_COMPLETE",
        "state_reason": "Stack CREATE completed",
        "create_at": "2026-01-02T03:04:05+00:00",
        "updated_at": None,
        "tags": ["a"],
    }
