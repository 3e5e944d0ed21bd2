"""The boundary's requests as Heat v1 request bodies and query parameters, the way
python-heatclient sends them (so that any Heat v1 service understands them)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from thermik.api.boundary import EventQuery, ListQuery, ResourceQuery, StackRequest, StackUpdate


def stack_body(request: StackRequest) -> dict[str, Any]:
    """A create, preview or validate body (keys left out where the request has nothing)."""
    body: dict[str, Any] = {}
    if request.name is not None:
        body["stack_name"] = request.name
    if request.template is not None:
        body["template"] = request.template
    if request.template_url is not None:
        body["template_url"] = request.template_url
    body["parameters"] = dict(request.parameters)
    body["files"] = dict(request.files)
    if request.environment is not None:
        body["environment"] = request.environment
    if request.environment_files:
        body["environment_files"] = list(request.environment_files)
    if request.files_container is not None:
        body["files_container"] = request.files_container
    if request.disable_rollback is not None:
        body["disable_rollback"] = request.disable_rollback
    if request.timeout_mins is not None:
        body["timeout_mins"] = request.timeout_mins
    if request.tags is not None:
        body["tags"] = ",".join(request.tags)
    if request.adopt_data is not None:
        body["adopt_stack_data"] = json.dumps(request.adopt_data)
    return body


def update_body(update: StackUpdate) -> dict[str, Any]:
    """A PUT (or, with ``existing``, PATCH) body."""
    body = stack_body(update.request)
    if update.clear_parameters:
        body["clear_parameters"] = list(update.clear_parameters)
    if update.converge:
        body["converge"] = True
    return body


def _filters(filters: Mapping[str, tuple[str, ...]]) -> dict[str, Any]:
    return {key: list(values) for key, values in filters.items()}


def _paged(query: ListQuery | EventQuery) -> dict[str, Any]:
    """The filters, sorting and marker paging both stack and event lists take."""
    params = _filters(query.filters)
    if query.sort_keys:
        params["sort_keys"] = ",".join(query.sort_keys)
    if query.sort_dir is not None:
        params["sort_dir"] = query.sort_dir.value
    if query.marker:
        params["marker"] = query.marker
    if query.limit is not None:
        params["limit"] = query.limit
    return params


def _flag(value: bool) -> str:
    return "True" if value else "False"


def list_params(query: ListQuery) -> dict[str, Any]:
    """The query string of a stack list."""
    params = _paged(query)
    for key in ("tags", "tags_any", "not_tags", "not_tags_any"):
        if values := getattr(query, key):
            params[key] = ",".join(values)
    for key in ("show_deleted", "show_nested", "show_hidden", "with_count", "global_tenant"):
        if getattr(query, key):
            params[key] = _flag(True)
    return params


def resource_params(query: ResourceQuery) -> dict[str, Any]:
    """The query string of a resource list."""
    params = _filters(query.filters)
    if query.nested_depth:
        params["nested_depth"] = query.nested_depth
    if query.with_detail:
        params["with_detail"] = _flag(True)
    return params


def event_params(query: EventQuery) -> dict[str, Any]:
    """The query string of an event list."""
    params = _paged(query)
    if query.nested_depth:
        params["nested_depth"] = query.nested_depth
    return params
