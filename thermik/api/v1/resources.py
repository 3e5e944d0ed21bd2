"""Resources of a stack: list, show, metadata, signal, mark unhealthy."""

from __future__ import annotations

import falcon

from thermik import errors
from thermik.api import body, fields, formatting, responses
from thermik.api.boundary import ResourceQuery
from thermik.api.query import Query
from thermik.api.v1.endpoint import STACK, Deps, Endpoint, Route, links_for, stack_of

RESOURCE = STACK + "/resources/{resource_name}"
RESOURCE_FILTERS = ("type", "status", "name", "action", "id", "physical_resource_id")
_LIST_PARAMS = (*RESOURCE_FILTERS, "nested_depth", "with_detail")


def resource_query(query: Query) -> ResourceQuery:
    """The list parameters; unknown ones are a 400 as in Heat."""
    query.reject_unknown(_LIST_PARAMS)
    return ResourceQuery(
        nested_depth=query.integer("nested_depth") or 0,
        with_detail=query.boolean("with_detail"),
        filters=query.filters(RESOURCE_FILTERS),
    )


class Resources(Endpoint):
    """``/stacks/{name}/{id}/resources``."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """List resources, down into nested stacks to ``nested_depth``."""
        ctx = self.authorize(req, "resource:index")
        query = resource_query(Query(req))
        views = self.service.list_resources(ctx, stack_of(path), query)
        document = formatting.resources(views, links_for(req, ctx), detail=query.with_detail)
        responses.json(resp, {"resources": document})


class Resource(Endpoint):
    """``/stacks/{name}/{id}/resources/{resource_name}``: show, mark unhealthy."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """Show a resource with its attributes (``with_attr`` adds more)."""
        ctx = self.authorize(req, "resource:show")
        view = self.service.show_resource(
            ctx,
            stack_of(path),
            path["resource_name"],
            with_attr=Query(req).values("with_attr"),
        )
        document = formatting.resource(view, links_for(req, ctx), detail=True)
        responses.json(resp, {"resource": document})

    def on_patch(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """``{"mark_unhealthy": bool, "resource_status_reason": str}``: 200 ``null``."""
        ctx = self.authorize(req, "resource:mark_unhealthy")
        document = body.read_object(req, self.limits.max_json_body_size)
        unhealthy = fields.boolean(document, "mark_unhealthy")
        if unhealthy is None:
            raise errors.InvalidRequest("is required", path=("mark_unhealthy",))
        reason = fields.optional_string(document, "resource_status_reason") or ""
        self.service.mark_resource_unhealthy(
            ctx,
            stack_of(path),
            path["resource_name"],
            unhealthy=unhealthy,
            reason=reason,
        )
        responses.json(resp, None)


class Metadata(Endpoint):
    """``.../resources/{resource_name}/metadata``: the resource's metadata."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """Show the metadata (a server's full document, which the heat collector polls)."""
        ctx = self.authorize(req, "resource:metadata")
        metadata = self.service.resource_metadata(ctx, stack_of(path), path["resource_name"])
        responses.json(resp, {"metadata": dict(metadata)})


class Signal(Endpoint):
    """``.../resources/{resource_name}/signal``: deliver a signal."""

    def on_post(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """Signal with the body as details (any JSON, or none): 200 ``null``."""
        ctx = self.authorize(req, "resource:signal")
        details = body.read_json(req, self.limits.max_json_body_size)
        self.service.signal_resource(ctx, stack_of(path), path["resource_name"], details)
        responses.json(resp, None)


def routes(deps: Deps) -> list[Route]:
    """Routes of this module."""
    return [
        Route(STACK + "/resources", Resources(deps)),
        Route(RESOURCE, Resource(deps)),
        Route(RESOURCE + "/metadata", Metadata(deps)),
        Route(RESOURCE + "/signal", Signal(deps)),
    ]
