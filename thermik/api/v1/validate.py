"""``POST /validate``: validate a template with its environment and parameters."""

from __future__ import annotations

from typing import Any

import falcon

from thermik.api import body, responses
from thermik.api.boundary import ParameterInfo, ValidationView
from thermik.api.query import Query
from thermik.api.v1.endpoint import Deps, Endpoint, Route
from thermik.api.v1.stack_body import template_request


def parameter_document(name: str, info: ParameterInfo) -> dict[str, Any]:
    """A parameter as Heat's validate shows it (``NoEcho`` is the string ``"true"/"false"``)."""
    document: dict[str, Any] = {
        "Type": info.type,
        "Description": info.description,
        "Label": info.label or name,
        "NoEcho": "true" if info.no_echo else "false",
    }
    if info.has_default:
        document["Default"] = info.default
    if info.has_value:
        document["Value"] = info.value
    if info.tags:
        document["Tags"] = list(info.tags)
    document.update(info.constraints)
    return document


def validation_document(view: ValidationView) -> dict[str, Any]:
    """The validate result."""
    document: dict[str, Any] = {
        "Description": view.description,
        "Parameters": {
            name: parameter_document(name, info) for name, info in view.parameters.items()
        },
        "Environment": dict(view.environment),
    }
    if view.parameter_groups:
        document["ParameterGroups"] = [dict(group) for group in view.parameter_groups]
    if view.nested_parameters:
        document["NestedParameters"] = dict(view.nested_parameters)
    return document


class Validate(Endpoint):
    """``/validate``."""

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Validate: 200 with the parameters, 400 naming what is invalid."""
        ctx = self.authorize(req, "stacks:validate_template")
        request = template_request(body.read_object(req, self.limits.max_json_body_size))
        query = Query(req)
        view = self.service.validate_template(
            ctx,
            request,
            show_nested=query.boolean("show_nested"),
            ignore_errors=query.csv("ignore_errors"),
        )
        responses.json(resp, validation_document(view))


def routes(deps: Deps) -> list[Route]:
    """Routes of this module."""
    return [Route("/validate", Validate(deps))]
