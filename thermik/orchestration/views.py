"""Stored values as the API's views: stacks, resources, events, snapshots, software.

Only shapes change here; no lookups. Times stay timezone-aware datetimes (the API formats
them), statuses stay Heat's action and status strings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from thermik.api.boundary import (
    EventView,
    OutputView,
    ResourceView,
    SnapshotView,
    SoftwareConfigView,
    SoftwareDeploymentView,
    StackIdentity,
    StackView,
)
from thermik.orchestration.base import identity_of
from thermik.persistence.resource_values import Event, Resource
from thermik.persistence.software_values import Snapshot, SoftwareConfig, SoftwareDeployment
from thermik.persistence.values import JSON, Stack
from thermik.template import StackDefinition

#: The resource type of stack-level events.
STACK_EVENT_TYPE = "OS::Heat::Stack"
#: Actions after which Heat shows no ``updated_time`` yet.
_NOT_UPDATED = ("INIT", "CREATE", "ADOPT")


def _description(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def stack_view(
    stack: Stack,
    *,
    description: Any = "",
    definition: StackDefinition | None = None,
    outputs: tuple[OutputView, ...] | None = None,
    project: bool = False,
) -> StackView:
    """A stack; parameters only when its ``definition`` is given (show, not list)."""
    parameters: dict[str, JSON] = {}
    hidden: frozenset[str] = frozenset()
    if definition is not None:
        description = definition.description
        parameters, hidden = stack_parameters(definition)
    updated = None if stack.action in _NOT_UPDATED else stack.updated_at
    return StackView(
        identity=identity_of(stack),
        action=stack.action,
        status=stack.status,
        status_reason=stack.status_reason,
        description=_description(description),
        template_description=_description(description),
        creation_time=stack.created_at,
        updated_time=updated,
        deletion_time=stack.deleted_at,
        parameters=parameters,
        hidden_parameters=hidden,
        outputs=outputs,
        disable_rollback=stack.disable_rollback,
        timeout_mins=stack.timeout_mins,
        tags=stack.tags,
        owner=stack.username,
        parent=stack.owner_id,
        stack_user_project_id=stack.stack_user_project_id,
        project=stack.tenant if project else None,
    )


def stack_parameters(definition: StackDefinition) -> tuple[dict[str, JSON], frozenset[str]]:
    """The values of a stack's own parameters, and the names of the hidden ones."""
    values: dict[str, JSON] = {}
    hidden = set()
    for name, param in definition.parameters.user_facing().items():
        if name in definition.parameters:
            values[name] = definition.parameters[name]
        if param.schema.hidden:
            hidden.add(name)
    return values, frozenset(hidden)


def resource_view(
    resource: Resource,
    stack: StackIdentity,
    *,
    required_by: Sequence[str] = (),
    description: str = "",
    attributes: Mapping[str, JSON] | None = None,
    nested_stack: StackIdentity | None = None,
    parent_resource: str | None = None,
) -> ResourceView:
    """A stored resource version."""
    return ResourceView(
        name=resource.name,
        stack=stack,
        type=resource.resource_type,
        action=resource.action,
        status=resource.status,
        status_reason=resource.status_reason,
        physical_resource_id=resource.physical_resource_id,
        creation_time=resource.created_at,
        updated_time=resource.updated_at,
        required_by=tuple(required_by),
        description=description,
        attributes=attributes,
        nested_stack=nested_stack,
        parent_resource=parent_resource,
    )


def planned_resource_view(
    name: str,
    type_name: str,
    stack: StackIdentity,
    *,
    required_by: Sequence[str] = (),
    description: str = "",
    properties: Mapping[str, JSON] | None = None,
    attributes: Mapping[str, JSON] | None = None,
    parent_resource: str | None = None,
) -> ResourceView:
    """A resource that does not exist yet (previews): INIT_COMPLETE, no id, no times."""
    return ResourceView(
        name=name,
        stack=stack,
        type=type_name,
        action="INIT",
        status="COMPLETE",
        required_by=tuple(required_by),
        description=description,
        properties=properties,
        attributes=attributes,
        parent_resource=parent_resource,
    )


def event_view(event: Event, stack: Stack, *, root: Stack | None = None) -> EventView:
    """An event; stack-level ones have the stack's name, id and ``OS::Heat::Stack``."""
    stack_level = event.resource_name == stack.name and event.resource_type in (
        "",
        STACK_EVENT_TYPE,
    )
    return EventView(
        id=event.id,
        stack=identity_of(stack),
        resource_name=event.resource_name,
        resource_type=STACK_EVENT_TYPE if stack_level else event.resource_type,
        action=event.resource_action,
        status=event.resource_status,
        status_reason=event.resource_status_reason,
        physical_resource_id=stack.id if stack_level else event.physical_resource_id,
        event_time=event.created_at,
        resource_properties=event.resource_properties,
        root_stack=identity_of(root) if root is not None and root.id != stack.id else None,
    )


def snapshot_view(snapshot: Snapshot) -> SnapshotView:
    """A snapshot."""
    return SnapshotView(
        id=snapshot.id,
        name=snapshot.name,
        status=snapshot.status,
        status_reason=snapshot.status_reason,
        data=snapshot.data,
        creation_time=snapshot.created_at,
        secrets=snapshot.secrets,
    )


def config_view(config: SoftwareConfig, *, project: bool = False) -> SoftwareConfigView:
    """A software config (its ``config`` document holds config, inputs, outputs, options)."""
    body = config.config
    return SoftwareConfigView(
        id=config.id,
        name=config.name,
        group=config.group,
        config=body.get("config"),
        inputs=tuple(body.get("inputs") or ()),
        outputs=tuple(body.get("outputs") or ()),
        options=dict(body.get("options") or {}),
        creation_time=config.created_at,
        project=config.tenant if project else None,
    )


def deployment_view(deployment: SoftwareDeployment) -> SoftwareDeploymentView:
    """A software deployment."""
    return SoftwareDeploymentView(
        id=deployment.id,
        config_id=deployment.config_id,
        server_id=deployment.server_id,
        action=deployment.action,
        status=deployment.status,
        status_reason=deployment.status_reason,
        input_values=dict(deployment.input_values),
        output_values=dict(deployment.output_values),
        creation_time=deployment.created_at,
        updated_time=deployment.updated_at,
    )
