"""Stack request bodies (Heat's InstantiationData) to :class:`StackRequest`/:class:`StackUpdate`.

What real clients send: ``template`` as an object or as JSON/YAML text (the service parses it),
``null`` in a PATCH that keeps the template (OSC), ``tags`` as ``"a,b"``, a list or ``null``,
``disable_rollback`` as a boolean or a string, ``adopt_stack_data`` as JSON text or an object.
Keys Heat does not know are ignored, as Heat does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from thermik import errors
from thermik.api import fields
from thermik.api.boundary import StackRequest, StackUpdate


def _adopt_data(body: Mapping[str, Any]) -> dict[str, Any] | None:
    value = body.get("adopt_stack_data")
    if value is None or isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            decoded = json.loads(value)
        except (ValueError, RecursionError):
            decoded = None
        if isinstance(decoded, dict):
            return decoded
        raise errors.InvalidRequest(
            "must be a JSON object (an abandon document)", path=("adopt_stack_data",)
        )
    return fields.mapping(body, "adopt_stack_data")


def stack_request(body: Mapping[str, Any], *, create: bool) -> StackRequest:
    """The request of a create, preview, update or validate body.

    ``create`` requires ``stack_name`` and a template (or ``template_url``, or adopt data).
    """
    request = StackRequest(
        name=fields.optional_string(body, "stack_name"),
        template=fields.document(body, "template"),
        template_url=fields.optional_string(body, "template_url"),
        parameters=fields.mapping(body, "parameters"),
        environment=fields.document(body, "environment"),
        files=fields.string_map(body, "files"),
        environment_files=fields.string_list(body, "environment_files"),
        files_container=fields.optional_string(body, "files_container"),
        disable_rollback=fields.boolean(body, "disable_rollback"),
        timeout_mins=fields.integer(body, "timeout_mins", minimum=1),
        tags=fields.tags(body),
        adopt_data=_adopt_data(body),
    )
    if create:
        fields.required_string(body, "stack_name")
        sources = (request.template, request.template_url, request.adopt_data)
        if all(source is None for source in sources):
            raise errors.InvalidRequest("No template specified", path=("template",))
        if "converge" in body:
            raise errors.InvalidRequest("is only allowed on update", path=("converge",))
    return request


def template_request(body: Mapping[str, Any]) -> StackRequest:
    """The request of a validate body: a template (or its URL) is required."""
    request = stack_request(body, create=False)
    if request.template is None and request.template_url is None:
        raise errors.InvalidRequest("No template specified", path=("template",))
    return request


def stack_update(body: Mapping[str, Any], *, existing: bool) -> StackUpdate:
    """The update of a PUT (``existing`` False) or PATCH body.

    A PUT must carry a template; a PATCH without one (or with ``null``) keeps the current one.
    """
    request = stack_request(body, create=False)
    if not existing and request.template is None and request.template_url is None:
        raise errors.InvalidRequest("No template specified", path=("template",))
    return StackUpdate(
        request=request,
        existing=existing,
        clear_parameters=fields.string_list(body, "clear_parameters"),
        converge=bool(fields.boolean(body, "converge")),
    )
