"""SQLAlchemy models: the schema Alembic migrations create (see ``migrations/versions``).

Rows never leave :mod:`thermik.persistence`; the store turns them into frozen values. Tables
follow Heat's data model (stack, raw_template, resource versions, resource_data, events,
software configs and deployments, snapshots, user_creds, the service registry) with three
changes: the convergence join is an append-only log (``join_arrival``) instead of a rewritten
JSON blob, a server's metadata generation lives in its own table so delivery never waits for the
server's resource lock, and stack leases replace Heat's ``stack_lock``.
"""

from __future__ import annotations

import datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from thermik.persistence.sqltypes import LONG_TEXT, JsonText, UTCDateTime

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s",
    "pk": "pk_%(table_name)s",
}

UUID = String(36)
NAME = String(255)
STATE = String(64)
PROJECT = String(64)


class Base(DeclarativeBase):
    """Declarative base: one metadata with deterministic constraint names on every backend."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime.datetime: UTCDateTime(), Any: JsonText()}
    # utf8mb4_bin makes names case- and accent-sensitive as on PostgreSQL and SQLite.
    __table_args__: Any = {"mysql_charset": "utf8mb4", "mysql_collate": "utf8mb4_bin"}


MYSQL_OPTIONS = Base.__table_args__


class RawTemplateFiles(Base):
    """A ``{path: content}`` map of files, shared by every template that has the same files."""

    __tablename__ = "raw_template_files"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    files: Mapped[Any]
    created_at: Mapped[datetime.datetime]


class RawTemplate(Base):
    """A template document with its environment; one row per stack definition."""

    __tablename__ = "raw_template"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    template: Mapped[Any]
    environment: Mapped[Any]
    files_id: Mapped[int | None] = mapped_column(ForeignKey("raw_template_files.id"))
    created_at: Mapped[datetime.datetime]


class UserCreds(Base):
    """Credentials or a trust stored for deferred operations; secrets are encrypted."""

    __tablename__ = "user_creds"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str | None] = mapped_column(NAME)
    password: Mapped[str | None] = mapped_column(Text)
    trust_id: Mapped[str | None] = mapped_column(Text)
    decrypt_method: Mapped[str | None] = mapped_column(String(64))
    tenant: Mapped[str | None] = mapped_column(NAME)
    tenant_id: Mapped[str | None] = mapped_column(PROJECT)
    auth_url: Mapped[str | None] = mapped_column(Text)
    region_name: Mapped[str | None] = mapped_column(NAME)
    trustor_user_id: Mapped[str | None] = mapped_column(PROJECT)
    created_at: Mapped[datetime.datetime]


class Stack(Base):
    """A stack; ``current_traversal`` is the fencing token every operation swaps."""

    __tablename__ = "stack"
    id: Mapped[str] = mapped_column(UUID, primary_key=True)
    name: Mapped[str] = mapped_column(NAME)
    tenant: Mapped[str] = mapped_column(PROJECT)
    username: Mapped[str | None] = mapped_column(NAME)
    raw_template_id: Mapped[int] = mapped_column(ForeignKey("raw_template.id"))
    prev_raw_template_id: Mapped[int | None] = mapped_column(ForeignKey("raw_template.id"))
    user_creds_id: Mapped[int | None] = mapped_column(ForeignKey("user_creds.id"))
    owner_id: Mapped[str | None] = mapped_column(
        ForeignKey("stack.id", ondelete="CASCADE"), index=True
    )
    root_id: Mapped[str] = mapped_column(UUID, index=True)
    parent_resource_name: Mapped[str | None] = mapped_column(NAME)
    nested_depth: Mapped[int] = mapped_column(Integer)
    stack_user_project_id: Mapped[str | None] = mapped_column(PROJECT)
    timeout_mins: Mapped[int | None] = mapped_column(Integer)
    disable_rollback: Mapped[bool] = mapped_column(Boolean)
    action: Mapped[str] = mapped_column(STATE)
    status: Mapped[str] = mapped_column(STATE)
    status_reason: Mapped[str] = mapped_column(Text)
    current_traversal: Mapped[str] = mapped_column(UUID)
    current_deps: Mapped[Any | None]
    traversal_started_at: Mapped[datetime.datetime | None]
    created_at: Mapped[datetime.datetime]
    updated_at: Mapped[datetime.datetime | None]
    deleted_at: Mapped[datetime.datetime | None] = mapped_column(index=True)
    # '' while the stack lives, its id once soft-deleted: keeps names unique among live stacks
    # without a partial index, which MariaDB lacks.
    deleted_key: Mapped[str] = mapped_column(UUID)
    __table_args__ = (UniqueConstraint("tenant", "name", "deleted_key"), MYSQL_OPTIONS)


class StackTag(Base):
    """One tag of a stack."""

    __tablename__ = "stack_tag"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    stack_id: Mapped[str] = mapped_column(ForeignKey("stack.id", ondelete="CASCADE"))
    tag: Mapped[str] = mapped_column(String(80), index=True)
    __table_args__ = (UniqueConstraint("stack_id", "tag"), MYSQL_OPTIONS)


class ResourcePropertiesData(Base):
    """Resolved properties or cached attribute values of a resource version."""

    __tablename__ = "resource_properties_data"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[str] = mapped_column(LONG_TEXT)
    encrypted: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime.datetime]


class Resource(Base):
    """One version of a logical resource; a replacement is a new row, never an in-place edit.

    ``engine_id``/``atomic_key`` are Heat's row lock: a compare-and-swap on ``atomic_key`` guards
    every write, ``engine_id`` names the engine acting on the row.
    """

    __tablename__ = "resource"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(UUID, unique=True)
    stack_id: Mapped[str] = mapped_column(ForeignKey("stack.id", ondelete="CASCADE"))
    root_stack_id: Mapped[str] = mapped_column(UUID, index=True)
    name: Mapped[str] = mapped_column(NAME)
    resource_type: Mapped[str] = mapped_column(NAME)
    physical_resource_id: Mapped[str | None] = mapped_column(NAME)
    action: Mapped[str] = mapped_column(STATE)
    status: Mapped[str] = mapped_column(STATE)
    status_reason: Mapped[str] = mapped_column(Text)
    requires: Mapped[Any]
    replaces: Mapped[int | None] = mapped_column(Integer)
    replaced_by: Mapped[int | None] = mapped_column(Integer)
    current_template_id: Mapped[int | None] = mapped_column(ForeignKey("raw_template.id"))
    engine_id: Mapped[str | None] = mapped_column(UUID)
    atomic_key: Mapped[int] = mapped_column(Integer)
    rsrc_metadata: Mapped[Any | None]
    metadata_generation: Mapped[int] = mapped_column(Integer)
    properties_data_id: Mapped[int | None] = mapped_column(
        ForeignKey("resource_properties_data.id", ondelete="SET NULL")
    )
    attr_data_id: Mapped[int | None] = mapped_column(
        ForeignKey("resource_properties_data.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime.datetime]
    updated_at: Mapped[datetime.datetime | None]
    __table_args__ = (
        Index(None, "stack_id", "name"),
        # Versions without a physical id yet are never looked up by it: leaving them out
        # spares a create's write the index page the NULL entry was on (not on MariaDB,
        # which has no partial indexes).
        Index(
            None,
            "physical_resource_id",
            sqlite_where=text("physical_resource_id IS NOT NULL"),
            postgresql_where=text("physical_resource_id IS NOT NULL"),
        ),
        MYSQL_OPTIONS,
    )


class ResourceData(Base):
    """A resource's private key/value store (passwords, keys, URLs, hook flags)."""

    __tablename__ = "resource_data"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    resource_id: Mapped[int] = mapped_column(ForeignKey("resource.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(NAME)
    value: Mapped[str] = mapped_column(LONG_TEXT)
    redact: Mapped[bool] = mapped_column(Boolean)
    decrypt_method: Mapped[str | None] = mapped_column(String(64))
    __table_args__ = (UniqueConstraint("resource_id", "key"), MYSQL_OPTIONS)


class Event(Base):
    """A stack or resource event; ``id`` orders events and serves marker paging."""

    __tablename__ = "event"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(UUID, unique=True)
    stack_id: Mapped[str] = mapped_column(ForeignKey("stack.id", ondelete="CASCADE"))
    resource_name: Mapped[str] = mapped_column(NAME)
    physical_resource_id: Mapped[str | None] = mapped_column(NAME)
    resource_action: Mapped[str] = mapped_column(STATE)
    resource_status: Mapped[str] = mapped_column(STATE)
    resource_status_reason: Mapped[str] = mapped_column(Text)
    resource_type: Mapped[str] = mapped_column(NAME)
    resource_properties: Mapped[Any | None]
    created_at: Mapped[datetime.datetime]
    __table_args__ = (Index(None, "stack_id", "id"), MYSQL_OPTIONS)


class JoinArrival(Base):
    """One arrival at a convergence join: append-only, one row per (node, sender) message.

    No index: every resource action appends one in its transaction, and an index is one more
    page that transaction writes; the table holds only the arrivals of running traversals, read
    whole when one resumes after a crash.
    """

    __tablename__ = "join_arrival"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    stack_id: Mapped[str] = mapped_column(ForeignKey("stack.id", ondelete="CASCADE"))
    traversal_id: Mapped[str] = mapped_column(UUID)
    node: Mapped[str] = mapped_column(NAME)
    sender: Mapped[str] = mapped_column(NAME)
    payload: Mapped[Any | None]
    created_at: Mapped[datetime.datetime]
    __table_args__ = MYSQL_OPTIONS
