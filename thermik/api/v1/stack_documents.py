"""The documents of a stack: template, environment, files, and the abandon/export document."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import falcon

from thermik.api import responses
from thermik.api.boundary import RequestContext, StackIdentity
from thermik.api.v1.endpoint import STACK, Deps, Endpoint, Route, stack_of

Reader = Callable[[RequestContext, StackIdentity], Mapping[str, Any]]


class StackDocument(Endpoint):
    """``GET /stacks/{name}/{id}/<document>``: the document itself, unwrapped."""

    def __init__(self, deps: Deps, reader: Reader, rule: str) -> None:
        super().__init__(deps)
        self._read = reader
        self._rule = rule

    def on_get(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """Show the document."""
        responses.json(resp, dict(self._read(self.authorize(req, self._rule), stack_of(path))))


class Abandon(Endpoint):
    """``DELETE /stacks/{name}/{id}/abandon``: forget the stack, return its abandon document."""

    def on_delete(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """Abandon the stack."""
        ctx = self.authorize(req, "stacks:abandon")
        document = self.service.abandon_stack(ctx, stack_of(path))
        responses.json(resp, dict(document))


def routes(deps: Deps) -> list[Route]:
    """Routes of this module."""
    service = deps.service
    return [
        Route(STACK + "/template", StackDocument(deps, service.stack_template, "stacks:template")),
        Route(
            STACK + "/environment",
            StackDocument(deps, service.stack_environment, "stacks:environment"),
        ),
        Route(STACK + "/files", StackDocument(deps, service.stack_files, "stacks:files")),
        Route(STACK + "/export", StackDocument(deps, service.export_stack, "stacks:export")),
        Route(STACK + "/abandon", Abandon(deps)),
    ]
