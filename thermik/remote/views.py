"""Heat's JSON documents back into the boundary's views: the inverse of
:mod:`thermik.api.formatting`, for documents any Heat v1 service sends.

Statuses are split at the first underscore (``ROLLBACK_IN_PROGRESS`` is ``ROLLBACK`` and
``IN_PROGRESS``), the pseudo parameters (``OS::stack_id`` ...) are left out of a stack's
parameters (the view adds them back when shown), and the stack of a resource or event comes
from its ``links``. Values the service did not send keep their defaults.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote, urlsplit

from thermik.api.boundary import (
    EventView,
    OutputView,
    ParameterInfo,
    PreviewNode,
    ResourceView,
    SnapshotView,
    StackIdentity,
    StackPreview,
    StackView,
    ValidationView,
)

STACK_EVENT_TYPE = "OS::Heat::Stack"
#: The keys of a validate parameter that are not constraints.
_PARAMETER_KEYS = frozenset({"Type", "Description", "Label", "NoEcho", "Default", "Value", "Tags"})


def mapping(document: Any) -> dict[str, Any]:
    """``document`` as a dict; ``{}`` when the service sent something else (or nothing)."""
    return dict(document) if isinstance(document, Mapping) else {}


def split_status(text: str | None) -> tuple[str, str]:
    """``("CREATE", "COMPLETE")`` from ``CREATE_COMPLETE``."""
    action, _, status = (text or "").partition("_")
    return action, status


def timestamp(text: str | None) -> datetime.datetime | None:
    """A Heat timestamp (``YYYY-MM-DDTHH:MM:SS[.ffffff]Z`` or with an offset), in UTC."""
    if not text:
        return None
    try:
        value = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo else value.replace(tzinfo=datetime.UTC)


def identity_of_url(href: str) -> StackIdentity | None:
    """The stack a ``.../stacks/<name>/<id>[/...]`` URL names."""
    parts = urlsplit(href).path.split("/")
    try:
        index = parts.index("stacks")
    except ValueError:
        return None
    if len(parts) < index + 3:
        return None
    return StackIdentity(unquote(parts[index + 1]), unquote(parts[index + 2]))


def linked(document: Mapping[str, Any], rel: str) -> StackIdentity | None:
    """The stack of the document's link ``rel`` (``stack``, ``nested``, ``root_stack``)."""
    for item in document.get("links") or ():
        if isinstance(item, Mapping) and item.get("rel") == rel and item.get("href"):
            return identity_of_url(str(item["href"]))
    return None


def output(document: Mapping[str, Any]) -> OutputView:
    """An output; resolved when the service sent its value."""
    return OutputView(
        key=str(document.get("output_key")),
        description=document.get("description"),
        value=document.get("output_value"),
        error=document.get("output_error"),
        resolved="output_value" in document or "output_error" in document,
    )


def _tags(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(tag for tag in value.split(",") if tag)
    return tuple(str(tag) for tag in value or ())


def stack(document: Mapping[str, Any]) -> StackView:
    """A stack of a list or a show."""
    action, status = split_status(document.get("stack_status"))
    parameters = document.get("parameters") or {}
    outputs = document.get("outputs")
    return StackView(
        identity=StackIdentity(str(document.get("stack_name")), str(document.get("id"))),
        action=action,
        status=status,
        status_reason=document.get("stack_status_reason") or "",
        description=document.get("description") or "",
        template_description=document.get("template_description") or "",
        creation_time=timestamp(document.get("creation_time")),
        updated_time=timestamp(document.get("updated_time")),
        deletion_time=timestamp(document.get("deletion_time")),
        parameters={k: v for k, v in parameters.items() if not k.startswith("OS::")},
        outputs=None if outputs is None else tuple(output(item) for item in outputs),
        disable_rollback=bool(document.get("disable_rollback", True)),
        timeout_mins=document.get("timeout_mins"),
        tags=_tags(document.get("tags")),
        owner=document.get("stack_owner"),
        parent=document.get("parent"),
        stack_user_project_id=document.get("stack_user_project_id"),
        project=document.get("project"),
    )


def resource(document: Mapping[str, Any], stack: StackIdentity) -> ResourceView:
    """A resource of ``stack`` (or of the nested stack its links name)."""
    action, status = split_status(document.get("resource_status"))
    properties = document.get("properties")
    return ResourceView(
        name=str(document.get("resource_name")),
        stack=linked(document, "stack") or stack,
        type=str(document.get("resource_type")),
        action=action,
        status=status,
        status_reason=document.get("resource_status_reason") or "",
        physical_resource_id=document.get("physical_resource_id") or None,
        creation_time=timestamp(document.get("creation_time")),
        updated_time=timestamp(document.get("updated_time")),
        required_by=tuple(document.get("required_by") or ()),
        description=document.get("description") or "",
        attributes=document.get("attributes"),
        nested_stack=linked(document, "nested"),
        parent_resource=document.get("parent_resource"),
        properties=None if properties is None else dict(properties),
    )


def preview_resource(document: Mapping[str, Any]) -> ResourceView:
    """A resource of a stack preview (its action and status apart, its stack by identifier)."""
    owner = document.get("stack_identity") or {}
    properties = document.get("properties")
    return ResourceView(
        name=str(document.get("resource_name")),
        stack=StackIdentity(
            str(owner.get("stack_name") or document.get("stack_name")), str(owner.get("stack_id"))
        ),
        type=str(document.get("resource_type")),
        action=str(document.get("resource_action") or ""),
        status=str(document.get("resource_status") or ""),
        status_reason=document.get("resource_status_reason") or "",
        physical_resource_id=document.get("physical_resource_id") or None,
        creation_time=timestamp(document.get("creation_time")),
        updated_time=timestamp(document.get("updated_time")),
        required_by=tuple(document.get("required_by") or ()),
        description=document.get("description") or "",
        attributes=document.get("attributes"),
        parent_resource=document.get("parent_resource"),
        properties=None if properties is None else dict(properties),
    )


def _preview_node(node: Any) -> PreviewNode:
    if isinstance(node, list):
        return tuple(_preview_node(child) for child in node)
    return preview_resource(node)


def preview(document: Mapping[str, Any]) -> StackPreview:
    """A stack preview: the would-be stack and its resources (nested stacks' as lists)."""
    resources = tuple(_preview_node(node) for node in document.get("resources") or ())
    return StackPreview(stack(document), resources)


def event(document: Mapping[str, Any], stack: StackIdentity) -> EventView:
    """An event of ``stack``: a stack-level one when it names the stack itself (lists do not
    carry the type)."""
    action, status = split_status(document.get("resource_status"))
    owner = linked(document, "stack") or stack
    name = str(document.get("resource_name"))
    physical = document.get("physical_resource_id") or None
    kind = document.get("resource_type")
    if kind is None:
        kind = STACK_EVENT_TYPE if (name, physical) == (owner.name, owner.id) else ""
    return EventView(
        id=str(document.get("id")),
        stack=owner,
        resource_name=name,
        resource_type=str(kind),
        action=action,
        status=status,
        status_reason=document.get("resource_status_reason") or "",
        physical_resource_id=physical,
        event_time=timestamp(document.get("event_time")),
        resource_properties=document.get("resource_properties"),
        root_stack=linked(document, "root_stack"),
    )


def snapshot(document: Mapping[str, Any]) -> SnapshotView:
    """A snapshot (its data as the service shows it, secrets masked already)."""
    return SnapshotView(
        id=str(document.get("id")),
        name=document.get("name"),
        status=str(document.get("status")),
        status_reason=document.get("status_reason") or "",
        action=document.get("action") or "SNAPSHOT",
        data=document.get("data"),
        creation_time=timestamp(document.get("creation_time")),
    )


def parameter(document: Mapping[str, Any]) -> ParameterInfo:
    """A parameter of a validate result."""
    return ParameterInfo(
        type=str(document.get("Type")),
        description=document.get("Description") or "",
        label=document.get("Label"),
        has_default="Default" in document,
        default=document.get("Default"),
        has_value="Value" in document,
        value=document.get("Value"),
        no_echo=str(document.get("NoEcho")).lower() == "true",
        tags=tuple(document.get("Tags") or ()),
        constraints={k: v for k, v in document.items() if k not in _PARAMETER_KEYS},
    )


def validation(document: Mapping[str, Any]) -> ValidationView:
    """A validate result."""
    parameters = document.get("Parameters") or {}
    groups: Sequence[Mapping[str, Any]] = document.get("ParameterGroups") or ()
    return ValidationView(
        description=document.get("Description") or "",
        parameters={name: parameter(info) for name, info in parameters.items()},
        parameter_groups=tuple(groups),
        environment=document.get("Environment") or {},
        nested_parameters=document.get("NestedParameters") or {},
    )
