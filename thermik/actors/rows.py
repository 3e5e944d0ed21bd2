"""Writes to one resource version row: Heat's lock protocol and the events that go with it.

Every state change of a row is one guarded write carrying its event, so the event list and the
rows never disagree: the lock moves the row to ``<ACTION>_IN_PROGRESS`` (``engine_id`` and
``atomic_key`` compare-and-swap), the unlock to COMPLETE or FAILED. A store-only plugin's action
that ran before its row was locked is recorded by one write with both events (:func:`record`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from thermik.engine.states import Action, State, Status
from thermik.persistence.resource_values import (
    DataWrite,
    JoinArrival,
    NewEvent,
    Resource,
    ResourceChanges,
)
from thermik.persistence.store import Store
from thermik.persistence.values import KEEP, Keep, changed_fields

#: Heat's status reason for a plain state change.
STATE_CHANGED = "state changed"


def state_of(row: Resource) -> State:
    """The row's state."""
    return State.parse(f"{row.action}_{row.status}")


def event_for(
    row: Resource,
    state: State,
    reason: str,
    physical_id: str | None,
    resource_type: str | Keep = KEEP,
    properties: Mapping[str, Any] | None = None,
) -> NewEvent:
    """The event recording that ``row`` (with ``resource_type``, if it changes) reached
    ``state``, with the resource's ``properties`` as Heat stores them with each event."""
    return NewEvent(
        stack_id=row.stack_id,
        resource_name=row.name,
        resource_action=state.action.value,
        resource_status=state.status.value,
        resource_status_reason=reason,
        resource_type=row.resource_type if resource_type is KEEP else resource_type,
        physical_resource_id=physical_id,
        resource_properties=shown_properties(properties),
    )


def shown_properties(properties: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The properties an event shows: the resolved ones, without those left unset (Heat
    shows what the template gave; an unset optional property is not among them)."""
    if properties is None:
        return None
    return {name: value for name, value in properties.items() if value is not None}


def _applied(row: Resource, key: int, engine_id: str | None, changes: ResourceChanges) -> Resource:
    fields = changed_fields(changes)
    return dataclasses.replace(row, atomic_key=key, engine_id=engine_id, **fields)


def lock(
    store: Store,
    row: Resource,
    engine_id: str,
    action: Action,
    changes: ResourceChanges,
    *,
    properties: Mapping[str, Any] | None = None,
    shown: Mapping[str, Any] | None = None,
    quiet: bool = False,
) -> Resource:
    """Lock ``row`` into ``<action>_IN_PROGRESS`` (``LockConflict`` if it moved on), storing
    the ``properties`` it is about to converge to in the same write; its event shows them (or
    ``shown``, the properties the row has, for an action that stores none); ``quiet``: with
    no event (Heat records only the outcome of what it does not really do)."""
    changes = dataclasses.replace(
        changes, action=action.value, status=Status.IN_PROGRESS.value, status_reason=STATE_CHANGED
    )
    state = State(action, Status.IN_PROGRESS)
    shown = properties if properties is not None else shown
    event = (
        None
        if quiet
        else event_for(row, state, STATE_CHANGED, row.physical_resource_id, properties=shown)
    )
    key = store.lock_resource(
        row.id, engine_id, row.atomic_key, changes, event=event, properties=properties
    )
    return _applied(row, key, engine_id, changes)


def unlock(  # noqa: PLR0913 (the event's properties ride with the write)
    store: Store,
    row: Resource,
    engine_id: str,
    status: Status,
    reason: str,
    changes: ResourceChanges,
    *,
    attributes: Mapping[str, Any] | None = None,
    arrival: JoinArrival | None = None,
    shown: Mapping[str, Any] | None = None,
) -> Resource:
    """Settle a locked row at ``status`` and release the lock ``engine_id`` holds,
    storing its ``attributes`` and the node's join ``arrival`` in the same write; the event
    shows the ``shown`` properties the action ran with."""
    changes = dataclasses.replace(changes, status=status.value, status_reason=reason)
    physical = changes.physical_resource_id
    if physical is KEEP:
        physical = row.physical_resource_id
    state = State.parse(f"{row.action}_{status.value}")
    event = event_for(row, state, reason, physical, properties=shown)
    key = store.unlock_resource(
        row.id,
        engine_id,
        row.atomic_key,
        changes,
        event=event,
        attributes=attributes,
        arrival=arrival,
    )
    return _applied(row, key, None, changes)


@dataclasses.dataclass(frozen=True, slots=True)
class Ahead:
    """What the lock of an action run ahead of it would have written: its action, the row's
    changes and the properties the action converges to (``shown``: those the row has, for an
    action that stores none)."""

    action: Action
    changes: ResourceChanges
    properties: Mapping[str, Any] | None = None
    shown: Mapping[str, Any] | None = None

    @property
    def event_properties(self) -> Mapping[str, Any] | None:
        """The properties the action's events show."""
        return self.properties if self.properties is not None else self.shown


def record(
    store: Store,
    row: Resource,
    ahead: Ahead,
    reason: str,
    changes: ResourceChanges,
    *,
    data: Sequence[DataWrite],
    attributes: Mapping[str, Any] | None = None,
    arrival: JoinArrival | None = None,
) -> Resource:
    """Record an action that completed before ``row`` was locked, as its lock and unlock
    would have (``LockConflict`` if the row moved on): the ``<ACTION>_IN_PROGRESS`` and
    ``<ACTION>_COMPLETE`` events, the row's final state with the lock's ``changes`` overlaid by
    the outcome's, the ``data`` the action wrote, properties, attributes and join arrival."""
    final = dataclasses.replace(
        ahead.changes,
        **changed_fields(changes),
        action=ahead.action.value,
        status=Status.COMPLETE.value,
        status_reason=reason,
    )
    physical = final.physical_resource_id
    if physical is KEEP:
        physical = row.physical_resource_id
    events = (
        event_for(
            row,
            State(ahead.action, Status.IN_PROGRESS),
            STATE_CHANGED,
            row.physical_resource_id,
            properties=ahead.event_properties,
        ),
        # As the unlock's would: of the row as the lock changed it (a create sets the type).
        event_for(
            row,
            State(ahead.action, Status.COMPLETE),
            reason,
            physical,
            ahead.changes.resource_type,
            ahead.event_properties,
        ),
    )
    key = store.record_action(
        row.id,
        row.atomic_key,
        final,
        events=events,
        data=data,
        properties=ahead.properties,
        attributes=attributes,
        arrival=arrival,
    )
    return _applied(row, key, None, final)


def hold(store: Store, row: Resource, engine_id: str, changes: ResourceChanges) -> Resource:
    """Change a row ``engine_id`` holds locked, keeping the lock, with no state change and no
    event (``LockConflict`` if the lock was lost)."""
    key = store.update_resource(row.id, row.atomic_key, changes, engine_id=engine_id)
    return _applied(row, key, engine_id, changes)


def went_down_reason(row: Resource) -> str:
    """Heat's reason for a row whose engine died during the action."""
    return f"Worker went down during resource {row.action}"


def steal(store: Store, row: Resource) -> Resource:
    """Release the lock a dead engine holds, marking its action FAILED."""
    assert row.engine_id is not None
    if row.status != Status.IN_PROGRESS.value:
        changes = ResourceChanges()
        key = store.unlock_resource(row.id, row.engine_id, row.atomic_key, changes)
        return _applied(row, key, None, changes)
    return unlock(
        store,
        row,
        row.engine_id,
        Status.FAILED,
        went_down_reason(row),
        ResourceChanges(),
    )


def respect(
    store: Store,
    row: Resource,
    changes: ResourceChanges,
    *,
    attributes: Mapping[str, Any] | None = None,
    arrival: JoinArrival | None = None,
) -> Resource:
    """Change an unlocked row without a state change (a no-change update), no event."""
    key = store.update_resource(
        row.id, row.atomic_key, changes, attributes=attributes, arrival=arrival
    )
    return _applied(row, key, None, changes)
