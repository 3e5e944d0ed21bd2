"""Frozen values the store accepts and returns: stacks, templates and queries over them.

Mappings inside values are JSON documents owned by the caller once returned; nothing here is
an ORM row and nothing holds a database connection.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal


class Keep(enum.Enum):
    """Marker type of :data:`KEEP`."""

    KEEP = "keep"


#: "Leave this column as it is" in a ``*Changes`` value (``None`` means "set to NULL").
KEEP: Final = Keep.KEEP

JSON = Any
SortDir = Literal["asc", "desc"]


def changed_fields(changes: object) -> dict[str, Any]:
    """The fields of a ``*Changes`` dataclass that are not :data:`KEEP`, by name."""
    names: tuple[str, ...] = type(changes).__slots__  # type: ignore[attr-defined]
    return {name: value for name in names if (value := getattr(changes, name)) is not KEEP}


@dataclasses.dataclass(frozen=True, slots=True)
class RawTemplate:
    """A stored template with its files and environment (hidden parameters decrypted)."""

    id: int
    template: Mapping[str, JSON]
    environment: Mapping[str, JSON]
    files: Mapping[str, str]
    hidden_parameters: frozenset[str]


@dataclasses.dataclass(frozen=True, slots=True)
class NewLease:
    """A stack lease taken in the same transaction as the stack row it is for."""

    engine_id: str
    seconds: float


@dataclasses.dataclass(frozen=True, slots=True)
class NewStack:
    """What is needed to create a stack row; ``id`` is generated when not given.

    A stack stored with its first traversal already started (``current_traversal``,
    ``current_deps``) comes with the ``lease`` of the engine that drives it: recovery then
    sees a crash right after the insert as any interrupted traversal.
    """

    name: str
    tenant: str
    raw_template_id: int
    username: str | None = None
    id: str | None = None
    owner_id: str | None = None
    parent_resource_name: str | None = None
    user_creds_id: int | None = None
    stack_user_project_id: str | None = None
    timeout_mins: int | None = None
    disable_rollback: bool = True
    action: str = "INIT"
    status: str = "COMPLETE"
    status_reason: str = ""
    current_traversal: str = ""
    tags: tuple[str, ...] = ()
    current_deps: JSON | None = None
    lease: NewLease | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Stack:
    """A stack as stored. ``root_id`` is the stack's own id for a top-level stack."""

    id: str
    name: str
    tenant: str
    username: str | None
    raw_template_id: int
    prev_raw_template_id: int | None
    user_creds_id: int | None
    owner_id: str | None
    root_id: str
    parent_resource_name: str | None
    nested_depth: int
    stack_user_project_id: str | None
    timeout_mins: int | None
    disable_rollback: bool
    action: str
    status: str
    status_reason: str
    current_traversal: str
    current_deps: JSON | None
    traversal_started_at: datetime.datetime | None
    created_at: datetime.datetime
    updated_at: datetime.datetime | None
    deleted_at: datetime.datetime | None
    tags: tuple[str, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class StackChanges:
    """Columns to set on a stack in the same statement as a traversal check or swap."""

    action: str | Keep = KEEP
    status: str | Keep = KEEP
    status_reason: str | Keep = KEEP
    raw_template_id: int | Keep = KEEP
    prev_raw_template_id: int | Keep | None = KEEP
    timeout_mins: int | Keep | None = KEEP
    disable_rollback: bool | Keep = KEEP
    current_deps: JSON | Keep | None = KEEP
    user_creds_id: int | Keep | None = KEEP
    tags: tuple[str, ...] | Keep = KEEP


#: "Change nothing but what the operation itself changes."
NO_STACK_CHANGES: Final = StackChanges()

#: Stack list filters the store understands (Heat's ``filters`` query keys).
STACK_FILTERS: Final = ("id", "name", "status", "action", "username", "owner_id", "tenant")
STACK_SORT_KEYS: Final = ("created_at", "updated_at", "name", "status", "action")


@dataclasses.dataclass(frozen=True, slots=True)
class StackQuery:
    """A stack listing: ``tenant=None`` lists every tenant (administrators only).

    ``filters`` maps a key of :data:`STACK_FILTERS` to accepted values; tags follow Heat:
    ``tags`` all present, ``tags_any`` at least one, ``not_tags`` not all, ``not_tags_any`` none.
    """

    tenant: str | None
    filters: Mapping[str, Sequence[str]] = dataclasses.field(default_factory=dict)
    tags: tuple[str, ...] = ()
    tags_any: tuple[str, ...] = ()
    not_tags: tuple[str, ...] = ()
    not_tags_any: tuple[str, ...] = ()
    show_deleted: bool = False
    show_nested: bool = False
    sort_key: str = "created_at"
    sort_dir: SortDir = "desc"
    marker: str | None = None
    limit: int | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class UserCreds:
    """Stored credentials (decrypted); ``password`` or ``trust_id`` is usually set, not both."""

    id: int
    username: str | None = None
    password: str | None = None
    trust_id: str | None = None
    trustor_user_id: str | None = None
    tenant: str | None = None
    tenant_id: str | None = None
    auth_url: str | None = None
    region_name: str | None = None
