"""Views to Heat's JSON: the exact key sets heatclient, OSC and openstacksdk read.

``stack_status``/``resource_status`` are ``<ACTION>_<STATUS>`` (heatclient splits at the first
underscore), times are ``YYYY-MM-DDTHH:MM:SSZ``, every object carries absolute ``links``, and
hidden parameters are masked.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

from thermik.api.boundary import (
    EventView,
    OutputView,
    PreviewNode,
    ResourceView,
    SnapshotView,
    SoftwareConfigView,
    SoftwareDeploymentView,
    StackIdentity,
    StackPreview,
    StackView,
)
from thermik.api.links import Links, link
from thermik.api.responses import isotime

MASK = "******"
STACK_EVENT_TYPE = "OS::Heat::Stack"


def status_text(action: str, status: str) -> str:
    """``CREATE_COMPLETE`` from ``CREATE`` and ``COMPLETE``."""
    return f"{action}_{status}"


def parameter_text(value: object) -> str:
    """A parameter value as Heat shows it in a stack: always a string."""
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        return ",".join(parameter_text(item) for item in value)
    if isinstance(value, Mapping):
        return json.dumps(value, sort_keys=True)
    return str(value)


def stack_parameters(view: StackView, project: str) -> dict[str, str]:
    """The stack's parameters with Heat's pseudo parameters; NoEcho values masked."""
    shown = {
        name: MASK if name in view.hidden_parameters else parameter_text(value)
        for name, value in view.parameters.items()
    }
    shown["OS::stack_id"] = view.identity.id
    shown["OS::stack_name"] = view.identity.name
    shown["OS::project_id"] = project
    return shown


def stack_summary(view: StackView, links: Links) -> dict[str, Any]:
    """A stack in a list."""
    document: dict[str, Any] = {
        "id": view.identity.id,
        "stack_name": view.identity.name,
        "description": view.description,
        "stack_status": status_text(view.action, view.status),
        "stack_status_reason": view.status_reason,
        "creation_time": isotime(view.creation_time),
        "updated_time": isotime(view.updated_time),
        "deletion_time": isotime(view.deletion_time),
        "stack_owner": view.owner,
        "parent": view.parent,
        "stack_user_project_id": view.stack_user_project_id,
        "tags": list(view.tags) or None,
        "links": [link(links.stack(view.identity, tenant=view.project), "self")],
    }
    if view.project is not None:
        document["project"] = view.project
    return document


def stack_detail(view: StackView, links: Links) -> dict[str, Any]:
    """A stack as ``GET /stacks/{name}/{id}`` shows it (``outputs`` only when resolved)."""
    document = stack_summary(view, links)
    document.update(
        template_description=view.template_description,
        parameters=stack_parameters(view, view.project or links.tenant),
        disable_rollback=view.disable_rollback,
        timeout_mins=view.timeout_mins,
        notification_topics=[],
        capabilities=[],
    )
    if view.outputs is not None:
        document["outputs"] = [output(item) for item in view.outputs]
    return document


def stack_preview(preview: StackPreview, links: Links) -> dict[str, Any]:
    """A stack preview: like a stack, id ``None``, no status, with its would-be resources."""
    identity = StackIdentity(preview.stack.identity.name, "None")
    document = stack_detail(
        dataclasses.replace(preview.stack, identity=identity, outputs=None), links
    )
    for key in ("stack_status", "stack_status_reason", "deletion_time"):
        del document[key]
    document["resources"] = [_preview_node(node, links) for node in preview.resources]
    return document


def _preview_node(node: PreviewNode, links: Links) -> Any:
    if isinstance(node, ResourceView):
        return preview_resource(node, links.tenant)
    return [_preview_node(child, links) for child in node]


def identity(stack: StackIdentity, tenant: str, path: str = "") -> dict[str, str]:
    """A stack's or resource's identifier as Heat's previews give it (``path`` ``""`` for a
    stack, ``/resources/<name>`` for a resource)."""
    return {"stack_name": stack.name, "stack_id": stack.id, "tenant": tenant, "path": path}


def preview_resource(view: ResourceView, tenant: str) -> dict[str, Any]:
    """A resource of a stack preview, in the fields of Heat's preview: its action and status
    apart, its own and its stack's identifiers, no links."""
    document: dict[str, Any] = {
        "resource_name": view.name,
        "resource_type": view.type,
        "resource_action": view.action,
        "resource_status": view.status,
        "resource_status_reason": view.status_reason,
        "physical_resource_id": view.physical_resource_id or "",
        "resource_identity": identity(view.stack, tenant, f"/resources/{view.name}"),
        "stack_identity": identity(view.stack, tenant),
        "stack_name": view.stack.name,
        "creation_time": isotime(view.creation_time),
        "updated_time": isotime(view.updated_time),
        "required_by": list(view.required_by),
        "description": view.description,
        "metadata": {},
        "attributes": dict(view.attributes or {}),
        "properties": dict(view.properties or {}),
    }
    if view.parent_resource is not None:
        document["parent_resource"] = view.parent_resource
    return document


def output(view: OutputView) -> dict[str, Any]:
    """A resolved output (``output_error`` only when it failed)."""
    document: dict[str, Any] = {
        "output_key": view.key,
        "description": view.description,
        "output_value": view.value,
    }
    if view.error is not None:
        document["output_error"] = view.error
    return document


def output_summary(view: OutputView) -> dict[str, Any]:
    """An output in ``GET .../outputs``: key and description only."""
    return {"output_key": view.key, "description": view.description}


def resource(view: ResourceView, links: Links, *, detail: bool) -> dict[str, Any]:
    """A resource; ``detail`` adds ``description`` and ``attributes``."""
    resource_links = [
        link(links.resource(view.stack, view.name), "self"),
        link(links.stack(view.stack), "stack"),
    ]
    if view.nested_stack is not None:
        resource_links.append(link(links.stack(view.nested_stack), "nested"))
    document: dict[str, Any] = {
        "resource_name": view.name,
        "logical_resource_id": view.name,
        "physical_resource_id": view.physical_resource_id or "",
        "resource_type": view.type,
        "resource_status": status_text(view.action, view.status),
        "resource_status_reason": view.status_reason,
        "creation_time": isotime(view.creation_time),
        "updated_time": isotime(view.updated_time),
        "required_by": list(view.required_by),
        "links": resource_links,
    }
    if view.parent_resource is not None:
        document["parent_resource"] = view.parent_resource
    if detail:
        document["description"] = view.description
        document["attributes"] = dict(view.attributes or {})
    if view.properties is not None:
        document["properties"] = dict(view.properties)
    return document


def resources(views: Sequence[ResourceView], links: Links, *, detail: bool) -> list[Any]:
    """A list of resources."""
    return [resource(view, links, detail=detail) for view in views]


def event(view: EventView, links: Links, *, detail: bool) -> dict[str, Any]:
    """An event; ``detail`` adds ``resource_type`` and ``resource_properties``."""
    event_links = [
        link(links.event(view.stack, view.resource_name, view.id), "self"),
        link(links.resource(view.stack, view.resource_name), "resource"),
        link(links.stack(view.stack), "stack"),
    ]
    if view.root_stack is not None:
        event_links.append(link(links.stack(view.root_stack), "root_stack"))
    document: dict[str, Any] = {
        "id": view.id,
        "links": event_links,
        "event_time": isotime(view.event_time),
        "resource_name": view.resource_name,
        "logical_resource_id": view.resource_name,
        "physical_resource_id": view.physical_resource_id or "",
        "resource_status": status_text(view.action, view.status),
        "resource_status_reason": view.status_reason,
    }
    if detail:
        document["resource_type"] = view.resource_type
        document["resource_properties"] = dict(view.resource_properties or {})
    return document


def snapshot(view: SnapshotView) -> dict[str, Any]:
    """A snapshot."""
    return {
        "id": view.id,
        "name": view.name,
        "action": view.action,
        "status": view.status,
        "status_reason": view.status_reason,
        "data": None if view.data is None else masked(view.data, view.secrets),
        "creation_time": isotime(view.creation_time),
    }


def masked(document: Mapping[str, Any], secrets: Sequence[Sequence[str]]) -> dict[str, Any]:
    """``document`` with the values at the ``secrets`` paths masked (as hidden parameters)."""
    shown = dict(document)
    for path in secrets:
        node = shown
        for key in path[:-1]:
            child = node.get(key)
            if not isinstance(child, Mapping):
                break
            copied = dict(child)
            node[key] = copied
            node = copied
        else:
            if path and path[-1] in node:
                node[path[-1]] = MASK
    return shown


def software_config(view: SoftwareConfigView, *, detail: bool = True) -> dict[str, Any]:
    """A software config; lists show only ``id, name, group, creation_time``."""
    document: dict[str, Any] = {
        "id": view.id,
        "name": view.name,
        "group": view.group,
        "creation_time": isotime(view.creation_time),
    }
    if detail:
        document.update(
            config=view.config,
            inputs=[dict(item) for item in view.inputs],
            outputs=[dict(item) for item in view.outputs],
            options=dict(view.options),
        )
    if view.project is not None:
        document["project"] = view.project
    return document


def software_deployment(view: SoftwareDeploymentView) -> dict[str, Any]:
    """A software deployment."""
    document: dict[str, Any] = {
        "id": view.id,
        "config_id": view.config_id,
        "server_id": view.server_id,
        "input_values": dict(view.input_values),
        "output_values": dict(view.output_values),
        "action": view.action,
        "status": view.status,
        "status_reason": view.status_reason,
        "creation_time": isotime(view.creation_time),
    }
    if view.updated_time is not None:
        document["updated_time"] = isotime(view.updated_time)
    return document
