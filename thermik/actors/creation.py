"""A new stack stored with its create already started: a crash cannot strand its row.

A create (or adopt) inserts the stack row as ``CREATE_IN_PROGRESS`` (``ADOPT_IN_PROGRESS``)
with its traversal, the traversal's record and the creating engine's lease, in one
transaction, and only then starts converging. An engine killed right after that insert leaves
an interrupted traversal like any other: its lease expires and recovery resumes it
(:mod:`thermik.actors.recovery`). An engine killed before it stored nothing but the raw
template; its caller never had an answer.
"""

from __future__ import annotations

import dataclasses

from thermik.actors import stack_changes
from thermik.actors.codec import TraversalRecord
from thermik.engine.messages import ConvergeRequest
from thermik.engine.operations import started_reason
from thermik.persistence.values import NewLease, NewStack


@dataclasses.dataclass(frozen=True, slots=True)
class CreateStack:
    """Store ``new`` and start the create (or adopt) ``request`` asks for, atomically.

    The stack actor of ``request.stack_id`` (``new.id``) answers with the stored stack.
    """

    new: NewStack
    request: ConvergeRequest


def record_of(message: CreateStack) -> TraversalRecord:
    """What the create's traversal was asked to do (stored with the row)."""
    request = message.request
    return TraversalRecord(
        request.operation,
        message.new.raw_template_id,
        request.snapshot_id,
        request.adopt_data,
        request.timeout_seconds,
    )


def started_row(
    message: CreateStack, record: TraversalRecord, traversal_id: str, lease: NewLease
) -> NewStack:
    """The row of the new stack with its traversal ``traversal_id`` started."""
    new, request = message.new, message.request
    state = stack_changes.target_state(record.operation)
    return dataclasses.replace(
        new,
        id=request.stack_id,
        action=state.action.value,
        status=state.status.value,
        status_reason=started_reason(record.operation),
        current_traversal=traversal_id,
        current_deps=record.to_json(),
        timeout_mins=new.timeout_mins if request.timeout_mins is None else request.timeout_mins,
        disable_rollback=(
            new.disable_rollback if request.disable_rollback is None else request.disable_rollback
        ),
        lease=lease,
    )
