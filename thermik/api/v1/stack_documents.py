"""The documents of a stack: template, environment, files, and the abandon/export document."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import falcon

from thermik.api import responses
from thermik.api.boundary import RequestContext, StackIdentity
from thermik.api.v1.endpoint import STACK, Deps, Endpoint, Route, context_of, stack_of

Reader = Callable[[RequestContext, StackIdentity], Mapping[str, Any]]


class StackDocument(Endpoint):
    """``GET /stacks/{name}/{id}/<document>``: the document itself, unwrapped."""

    def __init__(self, deps: Deps, reader: Reader) -> None:
        super().__init__(deps)
        self._read = reader

    def on_get(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """Show the document."""
        responses.json(resp, dict(self._read(context_of(req), stack_of(path))))


class Abandon(Endpoint):
    """``DELETE /stacks/{name}/{id}/abandon``: forget the stack, return its abandon document."""

    def on_delete(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """Abandon the stack."""
        document = self.service.abandon_stack(context_of(req), stack_of(path))
        responses.json(resp, dict(document))


def routes(deps: Deps) -> list[Route]:
    """Routes of this module."""
    return [
        Route(STACK + "/template", StackDocument(deps, deps.service.stack_template)),
        Route(STACK + "/environment", StackDocument(deps, deps.service.stack_environment)),
        Route(STACK + "/files", StackDocument(deps, deps.service.stack_files)),
        Route(STACK + "/export", StackDocument(deps, deps.service.export_stack)),
        Route(STACK + "/abandon", Abandon(deps)),
    ]
