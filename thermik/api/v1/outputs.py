"""Outputs of a stack: the list (unresolved) and one output (resolved)."""

from __future__ import annotations

import falcon

from thermik.api import formatting, responses
from thermik.api.v1.endpoint import STACK, Deps, Endpoint, Route, stack_of


class Outputs(Endpoint):
    """``/stacks/{name}/{id}/outputs``."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """List output keys and descriptions."""
        ctx = self.authorize(req, "stacks:list_outputs")
        views = self.service.list_outputs(ctx, stack_of(path))
        responses.json(resp, {"outputs": [formatting.output_summary(view) for view in views]})


class Output(Endpoint):
    """``/stacks/{name}/{id}/outputs/{output_key}``."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """Show one output with its value (or ``output_error``)."""
        ctx = self.authorize(req, "stacks:show_output")
        view = self.service.show_output(ctx, stack_of(path), path["output_key"])
        responses.json(resp, {"output": formatting.output(view)})


def routes(deps: Deps) -> list[Route]:
    """Routes of this module."""
    return [
        Route(STACK + "/outputs", Outputs(deps)),
        Route(STACK + "/outputs/{output_key}", Output(deps)),
    ]
