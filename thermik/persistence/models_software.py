"""Models for software deployments, snapshots, and the engines' own bookkeeping."""

from __future__ import annotations

import datetime
from typing import Any

from sqlalchemy import Boolean, ForeignKey, Integer, LargeBinary, Text
from sqlalchemy.dialects import mysql
from sqlalchemy.orm import Mapped, mapped_column

from thermik.persistence.models import NAME, PROJECT, STATE, UUID, Base


class ServerMetadata(Base):
    """A server's metadata generation, bumped by compare-and-swap on every delivery.

    Kept apart from the server's resource row so delivery never waits for that row's lock, and
    keyed by the server's physical id so servers created outside Thermik work too.
    """

    __tablename__ = "server_metadata"
    server_id: Mapped[str] = mapped_column(NAME, primary_key=True)
    generation: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime.datetime]


class SoftwareConfig(Base):
    """An immutable software config (``OS::Heat::SoftwareConfig`` and derived configs)."""

    __tablename__ = "software_config"
    id: Mapped[str] = mapped_column(UUID, primary_key=True)
    name: Mapped[str] = mapped_column(NAME)
    group: Mapped[str] = mapped_column(NAME)
    config: Mapped[Any]
    tenant: Mapped[str] = mapped_column(PROJECT, index=True)
    created_at: Mapped[datetime.datetime]


class SoftwareDeployment(Base):
    """A deployment of a config to a server; its id is the deployment resource's physical id."""

    __tablename__ = "software_deployment"
    id: Mapped[str] = mapped_column(UUID, primary_key=True)
    config_id: Mapped[str] = mapped_column(ForeignKey("software_config.id"))
    server_id: Mapped[str] = mapped_column(NAME, index=True)
    input_values: Mapped[Any]
    output_values: Mapped[Any]
    action: Mapped[str] = mapped_column(STATE)
    status: Mapped[str] = mapped_column(STATE)
    status_reason: Mapped[str] = mapped_column(Text)
    tenant: Mapped[str] = mapped_column(PROJECT, index=True)
    stack_user_project_id: Mapped[str | None] = mapped_column(PROJECT)
    created_at: Mapped[datetime.datetime] = mapped_column(index=True)
    updated_at: Mapped[datetime.datetime | None]


class Snapshot(Base):
    """A stack snapshot: the stack's data in abandon format plus per-resource data."""

    __tablename__ = "snapshot"
    id: Mapped[str] = mapped_column(UUID, primary_key=True)
    stack_id: Mapped[str] = mapped_column(ForeignKey("stack.id", ondelete="CASCADE"), index=True)
    name: Mapped[str | None] = mapped_column(NAME)
    data: Mapped[Any | None]
    tenant: Mapped[str] = mapped_column(PROJECT, index=True)
    action: Mapped[str] = mapped_column(STATE)
    status: Mapped[str] = mapped_column(STATE)
    status_reason: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime.datetime]
    updated_at: Mapped[datetime.datetime | None]


class EngineService(Base):
    """A running engine process; ``updated_at`` is its last heartbeat."""

    __tablename__ = "engine_service"
    id: Mapped[str] = mapped_column(UUID, primary_key=True)
    host: Mapped[str] = mapped_column(NAME)
    binary: Mapped[str] = mapped_column(NAME)
    topic: Mapped[str] = mapped_column(NAME)
    report_interval: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime.datetime]
    updated_at: Mapped[datetime.datetime]


class StackLease(Base):
    """Which engine drives a stack, until when; ``epoch`` counts hand-overs (a fencing token)."""

    __tablename__ = "stack_lease"
    stack_id: Mapped[str] = mapped_column(
        ForeignKey("stack.id", ondelete="CASCADE"), primary_key=True
    )
    engine_id: Mapped[str] = mapped_column(UUID)
    epoch: Mapped[int] = mapped_column(Integer)
    acquired_at: Mapped[datetime.datetime]
    expires_at: Mapped[datetime.datetime] = mapped_column(index=True)


#: Bodies of delivered documents and signals (LONGBLOB on MySQL, where BLOB stops at 64 KiB).
LONG_BLOB = LargeBinary().with_variant(mysql.LONGBLOB(), "mysql", "mariadb")


class DeliveryObject(Base):
    """A document or signal the builtin delivery serves at a capability URL path, so that
    every API worker and engine serves the same one; ``generation`` grows with every write."""

    __tablename__ = "delivery_object"
    key: Mapped[str] = mapped_column(NAME, primary_key=True)
    body: Mapped[bytes] = mapped_column(LONG_BLOB)
    #: Whether ``body`` is encrypted with ``auth_encryption_key`` (documents carry configs).
    sealed: Mapped[bool] = mapped_column(Boolean)
    generation: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime.datetime]
