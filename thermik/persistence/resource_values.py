"""Frozen values for resource versions, their events and the convergence join log."""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping
from typing import Final

from thermik.persistence.values import JSON, KEEP, Keep, SortDir


@dataclasses.dataclass(frozen=True, slots=True)
class NewResource:
    """A resource version to insert (a first version, or a replacement via ``replaces``)."""

    stack_id: str
    root_stack_id: str
    name: str
    resource_type: str
    current_template_id: int | None
    requires: tuple[int, ...] = ()
    replaces: int | None = None
    action: str = "INIT"
    status: str = "COMPLETE"
    status_reason: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class Resource:
    """One stored version of a resource, including its lock (``engine_id``, ``atomic_key``)."""

    id: int
    uuid: str
    stack_id: str
    root_stack_id: str
    name: str
    resource_type: str
    physical_resource_id: str | None
    action: str
    status: str
    status_reason: str
    requires: tuple[int, ...]
    replaces: int | None
    replaced_by: int | None
    current_template_id: int | None
    engine_id: str | None
    atomic_key: int
    metadata: Mapping[str, JSON]
    metadata_generation: int
    created_at: datetime.datetime
    updated_at: datetime.datetime | None


@dataclasses.dataclass(frozen=True, slots=True)
class ResourceChanges:
    """Columns to set with a lock, unlock or guarded update of a resource version."""

    action: str | Keep = KEEP
    status: str | Keep = KEEP
    status_reason: str | Keep = KEEP
    physical_resource_id: str | Keep | None = KEEP
    resource_type: str | Keep = KEEP
    requires: tuple[int, ...] | Keep = KEEP
    replaces: int | Keep | None = KEEP
    replaced_by: int | Keep | None = KEEP
    current_template_id: int | Keep | None = KEEP


#: "Change nothing but the lock."
NO_CHANGES: Final = ResourceChanges()


@dataclasses.dataclass(frozen=True, slots=True)
class NewEvent:
    """An event to append; for stack events ``resource_name`` is the stack's name."""

    stack_id: str
    resource_name: str
    resource_action: str
    resource_status: str
    resource_status_reason: str = ""
    resource_type: str = ""
    physical_resource_id: str | None = None
    resource_properties: Mapping[str, JSON] | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Event:
    """A stored event; ``id`` is its public uuid, events list in append order."""

    id: str
    stack_id: str
    resource_name: str
    resource_action: str
    resource_status: str
    resource_status_reason: str
    resource_type: str
    physical_resource_id: str | None
    resource_properties: Mapping[str, JSON] | None
    created_at: datetime.datetime


@dataclasses.dataclass(frozen=True, slots=True)
class EventQuery:
    """Events of one stack, paged: ``marker`` is the id of the last event already seen."""

    stack_id: str
    marker: str | None = None
    limit: int | None = None
    sort_dir: SortDir = "asc"
    resource_name: str | None = None
    resource_action: str | None = None
    resource_status: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class DataWrite:
    """One key of a resource's data an action set (``value``), or deleted (``None``)."""

    key: str
    value: str | None
    redact: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class JoinArrival:
    """One message that reached a join: ``sender``'s ``payload`` for ``node`` in a traversal.

    ``node`` and ``sender`` are keys the engine serialises; the store does not interpret them.
    """

    traversal_id: str
    node: str
    sender: str
    payload: JSON | None
