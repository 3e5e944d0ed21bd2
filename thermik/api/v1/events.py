"""Events of a stack (stack-level events included) and of one resource."""

from __future__ import annotations

import falcon

from thermik.api import formatting, responses
from thermik.api.boundary import EventQuery
from thermik.api.query import Query
from thermik.api.v1.endpoint import STACK, Deps, Endpoint, Route, links_for, stack_of
from thermik.api.v1.resources import RESOURCE

EVENT_FILTERS = ("resource_action", "resource_status", "resource_name", "resource_type")


def event_query(query: Query, resource_name: str | None) -> EventQuery:
    """The list parameters (paging: ``marker`` is exclusive, ``sort_dir`` asc or desc)."""
    filters = query.filters(EVENT_FILTERS)
    if resource_name is not None:
        filters.pop("resource_name", None)
    return EventQuery(
        resource_name=resource_name,
        filters=filters,
        sort_keys=query.csv("sort_keys"),
        sort_dir=query.sort_dir(),
        marker=query.last("marker") or None,
        limit=query.integer("limit"),
        nested_depth=query.integer("nested_depth") or 0,
    )


class Events(Endpoint):
    """``/stacks/{name}/{id}/events``: summaries of every event of the stack; below
    ``.../resources/{resource_name}/events``: summaries of that resource's events (404 when it
    has none). As in Heat both lists show the same fields, so that an event of one is equal to
    the same event of the other; showing one event gives every field."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """List events."""
        ctx = self.authorize(req, "events:index")
        resource_name = path.get("resource_name")
        query = event_query(Query(req), resource_name)
        views = self.service.list_events(ctx, stack_of(path), query)
        links = links_for(req, ctx)
        events = [formatting.event(view, links, detail=False) for view in views]
        responses.json(resp, {"events": events})


class Event(Endpoint):
    """``.../resources/{resource_name}/events/{event_id}``."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """Show one event."""
        ctx = self.authorize(req, "events:show")
        view = self.service.show_event(
            ctx, stack_of(path), path["resource_name"], path["event_id"]
        )
        event = formatting.event(view, links_for(req, ctx), detail=True)
        responses.json(resp, {"event": event})


def routes(deps: Deps) -> list[Route]:
    """Routes of this module."""
    return [
        Route(STACK + "/events", Events(deps)),
        Route(RESOURCE + "/events", Events(deps)),
        Route(RESOURCE + "/events/{event_id}", Event(deps)),
    ]
