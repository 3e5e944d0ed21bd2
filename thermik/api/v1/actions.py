"""``POST /stacks/{name}/{id}/actions``: suspend, resume, check, cancel an update.

The body has exactly one key naming the action; its value is ignored (heatclient sends ``null``,
openstacksdk ``""``). The answer is 200 with the JSON ``null``.
"""

from __future__ import annotations

import falcon

from thermik import errors
from thermik.api import body, responses
from thermik.api.boundary import StackAction
from thermik.api.v1.endpoint import STACK, Deps, Endpoint, Route, stack_of

_NAMES = ", ".join(action.value for action in StackAction)


def parse_action(document: dict[str, object]) -> StackAction:
    """The single action named by the body."""
    if len(document) != 1:
        raise errors.InvalidRequest(
            f"The body must name exactly one action (one of: {_NAMES}), not {len(document)}"
        )
    (name,) = document
    try:
        return StackAction(name)
    except ValueError:
        raise errors.InvalidRequest(
            f"Unknown action {name!r}, expected one of: {_NAMES}"
        ) from None


class Actions(Endpoint):
    """Stack actions."""

    def on_post(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """Start the named action."""
        action = parse_action(body.read_object(req, self.limits.max_json_body_size))
        ctx = self.authorize(req, f"actions:{action.value}")
        self.service.stack_action(ctx, stack_of(path), action)
        responses.json(resp, None)


def routes(deps: Deps) -> list[Route]:
    """Routes of this module."""
    return [Route(STACK + "/actions", Actions(deps))]
