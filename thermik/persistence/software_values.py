"""Frozen values for software configs and deployments, snapshots, engines and leases."""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping

from thermik.persistence.values import JSON, KEEP, Keep


@dataclasses.dataclass(frozen=True, slots=True)
class SoftwareConfig:
    """A software config: ``config`` holds ``config``, ``inputs``, ``outputs``, ``options``."""

    id: str
    name: str
    group: str
    config: Mapping[str, JSON]
    tenant: str
    created_at: datetime.datetime


@dataclasses.dataclass(frozen=True, slots=True)
class NewSoftwareDeployment:
    """A deployment to create; ``id`` is generated when not given."""

    config_id: str
    server_id: str
    tenant: str
    input_values: Mapping[str, JSON] = dataclasses.field(default_factory=dict)
    action: str = "INIT"
    status: str = "COMPLETE"
    status_reason: str = ""
    stack_user_project_id: str | None = None
    id: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class SoftwareDeployment:
    """A stored software deployment."""

    id: str
    config_id: str
    server_id: str
    tenant: str
    input_values: Mapping[str, JSON]
    output_values: Mapping[str, JSON]
    action: str
    status: str
    status_reason: str
    stack_user_project_id: str | None
    created_at: datetime.datetime
    updated_at: datetime.datetime | None


@dataclasses.dataclass(frozen=True, slots=True)
class DeploymentChanges:
    """Columns to change on a software deployment."""

    config_id: str | Keep = KEEP
    input_values: Mapping[str, JSON] | Keep = KEEP
    output_values: Mapping[str, JSON] | Keep = KEEP
    action: str | Keep = KEEP
    status: str | Keep = KEEP
    status_reason: str | Keep = KEEP


@dataclasses.dataclass(frozen=True, slots=True)
class Snapshot:
    """A stack snapshot."""

    id: str
    stack_id: str
    name: str | None
    tenant: str
    data: Mapping[str, JSON] | None
    action: str
    status: str
    status_reason: str
    created_at: datetime.datetime
    updated_at: datetime.datetime | None
    #: Paths of keys into ``data`` whose values are secrets (stored encrypted).
    secrets: tuple[tuple[str, ...], ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class EngineRecord:
    """A registered engine process and its last heartbeat."""

    id: str
    host: str
    binary: str
    topic: str
    report_interval: int
    created_at: datetime.datetime
    last_heartbeat: datetime.datetime


@dataclasses.dataclass(frozen=True, slots=True)
class StackLease:
    """Who drives a stack until when; ``epoch`` grows with every hand-over to another engine."""

    stack_id: str
    engine_id: str
    epoch: int
    acquired_at: datetime.datetime
    expires_at: datetime.datetime


@dataclasses.dataclass(frozen=True, slots=True)
class DeliveryObject:
    """A builtin delivery document or signal, and the generation of its last write."""

    body: bytes
    generation: int
