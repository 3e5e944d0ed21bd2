"""What a stack actor writes: the stack row at each step, its events, and the purge.

Small functions from the stack row, the request and the settings to the store's change
values, kept apart from the actor's message handling.
"""

from __future__ import annotations

import contextlib
import datetime
import logging
from collections.abc import Callable
from typing import Any

from thermik.actors.codec import TraversalRecord
from thermik.actors.plan import TraversalPlan
from thermik.actors.stored import current_versions
from thermik.conf.settings import EngineSettings
from thermik.engine.messages import (
    ConvergeRequest,
    CreateReplacementVersion,
    ReplacementCreated,
    ResourceFailed,
    TraversalOptions,
)
from thermik.engine.operations import stack_state, started_reason
from thermik.engine.states import Action, State, Status
from thermik.errors import Failure, LockConflict, NotFound, ThermikError
from thermik.persistence import crypto
from thermik.persistence.resource_values import NewEvent, NewResource
from thermik.persistence.store import Store
from thermik.persistence.values import KEEP, Stack, StackChanges, UserCreds

LOG = logging.getLogger(__name__)

#: Operations that switch the stack to another template.
_SWITCHING = frozenset({Action.CREATE, Action.ADOPT, Action.UPDATE, Action.RESTORE})
#: Of those, the ones that keep the template they leave for a rollback.
_KEEPS_PREVIOUS = frozenset({Action.UPDATE, Action.RESTORE})
#: A stack's own events name this type, as Heat's do.
STACK_TYPE = "OS::Heat::Stack"


def target_state(operation: Action, status: Status = Status.IN_PROGRESS) -> State:
    """The stack state of ``operation`` at ``status``."""
    return stack_state(operation, status)


def template_for(operation: Action, request: ConvergeRequest, stack: Stack) -> int:
    """The template a request converges the stack to."""
    if operation in _SWITCHING and request.template_id is not None:
        return request.template_id
    return stack.raw_template_id


def starting(
    record: TraversalRecord, request: ConvergeRequest, stack: Stack, template_id: int
) -> StackChanges:
    """The stack row as a requested traversal starts (in the same write as the swap)."""
    operation = record.operation
    switching = operation in _SWITCHING and template_id != stack.raw_template_id
    return StackChanges(
        action=target_state(operation).action.value,
        status=Status.IN_PROGRESS.value,
        status_reason=started_reason(operation),
        raw_template_id=template_id if switching else KEEP,
        prev_raw_template_id=(
            stack.raw_template_id if switching and operation in _KEEPS_PREVIOUS else KEEP
        ),
        timeout_mins=request.timeout_mins if request.timeout_mins is not None else KEEP,
        disable_rollback=(
            request.disable_rollback if request.disable_rollback is not None else KEEP
        ),
        current_deps=record.to_json(),
    )


def rolling_back(record: TraversalRecord, template_id: int) -> StackChanges:
    """The stack row as a rollback to ``template_id`` starts."""
    return StackChanges(
        action=Action.ROLLBACK.value,
        status=Status.IN_PROGRESS.value,
        status_reason=started_reason(Action.ROLLBACK),
        raw_template_id=template_id,
        prev_raw_template_id=None,
        current_deps=record.to_json(),
    )


def settled(state: State, reason: str) -> StackChanges:
    """The stack row as a traversal settles."""
    return StackChanges(action=state.action.value, status=state.status.value, status_reason=reason)


def empty_template(store: Store, stack: Stack) -> int:
    """Store an empty template of the stack's template version (a failed create rolls back
    to it) and return its id."""
    raw = store.get_raw_template(stack.raw_template_id)
    versions = {k: v for k, v in raw.template.items() if "version" in str(k).lower()}
    return store.store_raw_template(versions, {}, {})


def timeout_seconds(settings: EngineSettings, stack: Stack, record: TraversalRecord) -> float:
    """The traversal's deadline, from its start."""
    if record.timeout_seconds is not None:
        return record.timeout_seconds
    minutes = stack.timeout_mins if stack.timeout_mins else settings.default_stack_timeout
    return float(minutes) * 60.0


def elapsed(stack: Stack) -> float:
    """Seconds since the stack's traversal started (timeouts survive restarts)."""
    started = stack.traversal_started_at
    if started is None:
        return 0.0
    if started.tzinfo is None:
        started = started.replace(tzinfo=datetime.UTC)
    return max(0.0, (datetime.datetime.now(datetime.UTC) - started).total_seconds())


def options(
    settings: EngineSettings, stack: Stack, record: TraversalRecord, *, elapsed: float
) -> TraversalOptions:
    """The traversal's options; the deadline counts from the stored start."""
    return TraversalOptions(
        concurrency_limit=settings.max_concurrent_resources,
        disable_rollback=stack.disable_rollback,
        timeout_seconds=max(0.0, timeout_seconds(settings, stack, record) - elapsed),
        cancel_grace_seconds=float(settings.cancel_grace_period),
    )


def stack_event(stack: Stack, state: State, reason: str) -> NewEvent:
    """An event about the stack itself."""
    return NewEvent(
        stack_id=stack.id,
        resource_name=stack.name,
        resource_action=state.action.value,
        resource_status=state.status.value,
        resource_status_reason=reason,
        resource_type=STACK_TYPE,
        physical_resource_id=stack.id,
    )


def insert_replacement(
    store: Store, plan: TraversalPlan, command: CreateReplacementVersion
) -> ReplacementCreated | ResourceFailed:
    """Insert the replacement version asked for, linking both rows (one transaction)."""
    resource_type = plan.definition.resources[command.name].type if plan.definition else ""
    new = NewResource(
        plan.stack.id,
        plan.root_id,
        command.name,
        resource_type,
        plan.template_id,
        requires=tuple(sorted(command.requires)),
    )
    error: ThermikError | None = None
    for _ in range(3):
        try:
            old = store.get_resource(command.replaces)
            created = store.replace_resource(old.id, old.atomic_key, new)
            return ReplacementCreated(command.node, command.traversal_id, created.id)
        except LockConflict as conflict:
            error = conflict
        except ThermikError as failure:
            error = failure
            break
    assert error is not None
    return ResourceFailed(command.node, command.traversal_id, Failure.from_exception(error))


def purge(
    store: Store,
    stack: Stack,
    traversal_id: str,
    forget: Callable[[int], None] | None = None,
) -> None:
    """What Heat does once a traversal completed: drop deleted versions and the previous
    template; a deleted stack loses its credentials (``forget`` does it, when given) and is
    soft-deleted."""
    try:
        if stack.action == Action.DELETE.value:
            if stack.deleted_at is None:
                store.soft_delete_stack(stack.id, traversal_id)
            if stack.user_creds_id is not None and stack.owner_id is None:
                (forget or store.delete_user_creds)(stack.user_creds_id)
            return
        store.delete_deleted_resources(stack.id)
        previous = stack.prev_raw_template_id
        if previous is not None and previous != stack.raw_template_id:
            store.update_stack(stack.id, traversal_id, StackChanges(prev_raw_template_id=None))
            store.delete_raw_template(previous)
    except ThermikError as error:
        LOG.info("stack %s: purge after completion left something behind: %s", stack.id, error)


def forget_credentials(store: Store, release: Callable[[UserCreds], None], creds_id: int) -> None:
    """Undo a deleted stack's delegation (``release``: delete its trust), then its row."""
    try:
        release(store.get_user_creds(creds_id))
    except ThermikError as error:
        LOG.warning("credentials %s: the delegation was not undone: %s", creds_id, error)
    finally:
        with contextlib.suppress(NotFound):
            store.delete_user_creds(creds_id)


def snapshot_failed(store: Store, stack: Stack, reason: str) -> None:
    """A failed SNAPSHOT traversal fails its snapshot too."""
    record = TraversalRecord.from_json(stack.current_deps, Action(stack.action))
    if record.operation is not Action.SNAPSHOT or record.snapshot_id is None:
        return
    with contextlib.suppress(NotFound):
        store.update_snapshot(record.snapshot_id, status="FAILED", status_reason=reason)


def snapshot_data(store: Store, stack: Stack) -> tuple[dict[str, Any], list[tuple[str, ...]]]:
    """What a snapshot keeps: the template, environment and files (a restore converges back to
    them) and each resource's physical id, state and private data; and the paths of the
    secrets in it (hidden parameters, redacted resource data), which are stored encrypted."""
    resources: dict[str, Any] = {}
    secrets: list[tuple[str, ...]] = []
    for name, row in current_versions(
        store.list_resources(stack.id), stack.raw_template_id
    ).items():
        resources[name] = {
            "name": name,
            "resource_id": row.physical_resource_id,
            "type": row.resource_type,
            "action": row.action,
            "status": row.status,
            "resource_data": store.get_resource_data(row.id),
            "metadata": dict(row.metadata),
        }
        redacted = store.redacted_resource_data_keys(row.id)
        secrets.extend(("resources", name, "resource_data", key) for key in sorted(redacted))
    raw = store.get_raw_template(stack.raw_template_id)
    for section in crypto.SECRET_SECTIONS:
        secrets.extend(("environment", section, p) for p in sorted(raw.hidden_parameters))
    data = {
        "id": stack.id,
        "name": stack.name,
        "action": Action.SNAPSHOT.value,
        "status": Status.COMPLETE.value,
        "template": dict(raw.template),
        "environment": dict(raw.environment),
        "files": dict(raw.files),
        "resources": resources,
    }
    return data, secrets


def snapshot_done(store: Store, stack: Stack) -> None:
    """A completed SNAPSHOT traversal stores the data and completes its snapshot."""
    record = TraversalRecord.from_json(stack.current_deps, Action(stack.action))
    if record.operation is not Action.SNAPSHOT or record.snapshot_id is None:
        return
    data, secrets = snapshot_data(store, stack)
    with contextlib.suppress(NotFound):
        store.update_snapshot(
            record.snapshot_id,
            status="COMPLETE",
            status_reason="Stack SNAPSHOT completed successfully",
            data=data,
            secrets=secrets,
        )
