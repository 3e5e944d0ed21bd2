"""Snapshots of a stack: create, list, show, delete, restore."""

from __future__ import annotations

import falcon

from thermik.api import body, fields, formatting, responses
from thermik.api.admissible import NAME_LENGTH
from thermik.api.v1.endpoint import STACK, Deps, Endpoint, Route, stack_of

SNAPSHOT = STACK + "/snapshots/{snapshot_id}"


class Snapshots(Endpoint):
    """``/stacks/{name}/{id}/snapshots``."""

    def on_post(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """Snapshot the stack (``{"name": ...}`` or no body): the snapshot, not wrapped."""
        ctx = self.authorize(req, "stacks:snapshot")
        document = body.read_object(req, self.limits.max_json_body_size, required=False)
        view = self.service.create_snapshot(
            ctx,
            stack_of(path),
            fields.optional_string(document, "name", max_length=NAME_LENGTH),
        )
        responses.json(resp, formatting.snapshot(view))

    def on_get(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """List snapshots."""
        ctx = self.authorize(req, "stacks:list_snapshots")
        views = self.service.list_snapshots(ctx, stack_of(path))
        responses.json(resp, {"snapshots": [formatting.snapshot(view) for view in views]})


class Snapshot(Endpoint):
    """``/stacks/{name}/{id}/snapshots/{snapshot_id}``."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """Show a snapshot."""
        ctx = self.authorize(req, "stacks:show_snapshot")
        view = self.service.show_snapshot(ctx, stack_of(path), path["snapshot_id"])
        responses.json(resp, {"snapshot": formatting.snapshot(view)})

    def on_delete(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """Delete a snapshot: 204."""
        ctx = self.authorize(req, "stacks:delete_snapshot")
        self.service.delete_snapshot(ctx, stack_of(path), path["snapshot_id"])
        responses.no_content(resp)


class Restore(Endpoint):
    """``.../snapshots/{snapshot_id}/restore``."""

    def on_post(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """Start restoring the stack: 202."""
        ctx = self.authorize(req, "stacks:restore_snapshot")
        self.service.restore_snapshot(ctx, stack_of(path), path["snapshot_id"])
        responses.accepted(resp)


def routes(deps: Deps) -> list[Route]:
    """Routes of this module."""
    return [
        Route(STACK + "/snapshots", Snapshots(deps)),
        Route(SNAPSHOT, Snapshot(deps)),
        Route(SNAPSHOT + "/restore", Restore(deps)),
    ]
