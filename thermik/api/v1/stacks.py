"""Stacks: the collection, lookups (302 to the canonical URL), show, update, delete, previews."""

from __future__ import annotations

from collections.abc import Mapping

import falcon

from thermik.api import body, formatting, responses
from thermik.api.boundary import ListQuery, Page, StackView
from thermik.api.query import Query
from thermik.api.v1.endpoint import STACK, Deps, Endpoint, Route, context_of, links_for, stack_of
from thermik.api.v1.stack_body import stack_request, stack_update

STACK_FILTERS = ("id", "status", "name", "action", "tenant", "username", "owner_id")
#: Sub-paths of ``/stacks/{name}`` that redirect to the canonical stack (Heat's, plus outputs).
LOOKUP_SUFFIXES = ("resources", "events", "template", "actions", "environment", "files", "outputs")


def list_query(query: Query) -> ListQuery:
    """The stack list parameters."""
    return ListQuery(
        filters=query.filters(STACK_FILTERS),
        sort_keys=query.csv("sort_keys"),
        sort_dir=query.sort_dir(),
        marker=query.last("marker") or None,
        limit=query.integer("limit"),
        tags=query.csv("tags"),
        tags_any=query.csv("tags_any"),
        not_tags=query.csv("not_tags"),
        not_tags_any=query.csv("not_tags_any"),
        show_deleted=query.boolean("show_deleted"),
        show_nested=query.boolean("show_nested"),
        show_hidden=query.boolean("show_hidden"),
        with_count=query.boolean("with_count"),
        global_tenant=query.boolean("global_tenant"),
    )


def update_rule(document: Mapping[str, object], existing: bool) -> str:
    """Heat's rule for an update: a PATCH that carries nothing but ``existing`` re-runs the
    stack unchanged (``stacks:update_no_change``)."""
    if not existing:
        return "stacks:update"
    changes = [value for key, value in document.items() if key != "existing"]
    if all(value in (None, "", {}, []) for value in changes):
        return "stacks:update_no_change"
    return "stacks:update_patch"


class StackList(Endpoint):
    """``/stacks/detail``: the list with every stack field."""

    detail = True
    rule = "stacks:detail"

    def _page(self, req: falcon.Request) -> Page[StackView]:
        ctx = self.authorize(req, self.rule)
        query = list_query(Query(req))
        if query.global_tenant:
            self.authorize(req, "stacks:global_index")
        return self.service.list_stacks(ctx, query)

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """List stacks (``marker`` is the id of the last stack of the previous page)."""
        page = self._page(req)
        links = links_for(req, context_of(req))
        render = formatting.stack_detail if self.detail else formatting.stack_summary
        document: dict[str, object] = {"stacks": [render(view, links) for view in page.items]}
        if page.count is not None:
            document["count"] = page.count
        responses.json(resp, document)


class StackCollection(StackList):
    """``/stacks``: list and create."""

    detail = False
    rule = "stacks:index"

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Create (or adopt) a stack: 201, ``Location`` of the new stack."""
        ctx = self.authorize(req, "stacks:create")
        request = stack_request(body.read_object(req, self.limits.max_json_body_size), create=True)
        if request.adopt_data is not None:
            created = self.service.adopt_stack(ctx, request)
        else:
            created = self.service.create_stack(ctx, request)
        location = links_for(req, ctx).stack(created)
        resp.location = location
        responses.json(
            resp,
            {"stack": {"id": created.id, "links": [{"href": location, "rel": "self"}]}},
            status=201,
        )


class StackPreview(Endpoint):
    """``/stacks/preview``: what a create would produce."""

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Preview a create."""
        ctx = self.authorize(req, "stacks:preview")
        request = stack_request(body.read_object(req, self.limits.max_json_body_size), create=True)
        preview = self.service.preview_stack(ctx, request)
        responses.json(resp, {"stack": formatting.stack_preview(preview, links_for(req, ctx))})


class StackLookup(Endpoint):
    """``/stacks/{name_or_id}[/<suffix>]``: 302 to the canonical URL, query kept.

    Clients re-send the same method and body to the ``Location``, so every method redirects.
    """

    def __init__(self, deps: Deps, suffix: str = "") -> None:
        super().__init__(deps)
        self._suffix = f"/{suffix}" if suffix else ""

    def _redirect(self, req: falcon.Request, resp: falcon.Response, stack_name: str) -> None:
        ctx = self.authorize(req, "stacks:lookup")
        # The client re-sends the body to the Location; read it so the connection stays sane.
        req.bounded_stream.exhaust()
        found = self.service.identify_stack(ctx, stack_name)
        location = links_for(req, ctx).stack(found) + self._suffix
        if req.query_string:
            location += "?" + req.query_string
        responses.redirect(resp, location)

    on_get = on_post = on_put = on_patch = on_delete = _redirect


class Stack(Endpoint):
    """``/stacks/{name}/{id}``: show, update (PUT replaces, PATCH keeps), delete."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """Show a stack (deleted ones too); ``resolve_outputs=false`` skips outputs."""
        ctx = self.authorize(req, "stacks:show")
        resolve = Query(req).boolean("resolve_outputs", default=True)
        view = self.service.show_stack(ctx, stack_of(path), resolve_outputs=resolve)
        responses.json(resp, {"stack": formatting.stack_detail(view, links_for(req, ctx))})

    def _update(
        self,
        req: falcon.Request,
        resp: falcon.Response,
        path: Mapping[str, str],
        existing: bool,
    ) -> None:
        document = body.read_object(req, self.limits.max_json_body_size)
        ctx = self.authorize(req, update_rule(document, existing))
        update = stack_update(document, existing=existing)
        self.service.update_stack(ctx, stack_of(path), update)
        responses.accepted(resp)

    def on_put(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """Update, replacing template, parameters and environment: 202."""
        self._update(req, resp, path, existing=False)

    def on_patch(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """Update, keeping whatever the body does not carry: 202."""
        self._update(req, resp, path, existing=True)

    def on_delete(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """Delete a stack: 204."""
        self.service.delete_stack(self.authorize(req, "stacks:delete"), stack_of(path))
        responses.no_content(resp)


class StackUpdatePreview(Endpoint):
    """``/stacks/{name}/{id}/preview``: what an update would change."""

    def _preview(
        self,
        req: falcon.Request,
        resp: falcon.Response,
        path: Mapping[str, str],
        existing: bool,
    ) -> None:
        ctx = self.authorize(
            req, "stacks:preview_update_patch" if existing else "stacks:preview_update"
        )
        update = stack_update(
            body.read_object(req, self.limits.max_json_body_size), existing=existing
        )
        changes = self.service.preview_update(
            ctx,
            stack_of(path),
            update,
            show_nested=Query(req).boolean("show_nested"),
        )
        links = links_for(req, ctx)
        groups = {
            "added": changes.added,
            "deleted": changes.deleted,
            "replaced": changes.replaced,
            "unchanged": changes.unchanged,
            "updated": changes.updated,
        }
        document = {
            group: formatting.resources(views, links, detail=True)
            for group, views in groups.items()
        }
        responses.json(resp, {"resource_changes": document})

    def on_put(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """Preview a PUT update."""
        self._preview(req, resp, path, existing=False)

    def on_patch(self, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        """Preview a PATCH update."""
        self._preview(req, resp, path, existing=True)


def routes(deps: Deps) -> list[Route]:
    """Routes of this module."""
    lookups = [
        Route(f"/stacks/{{stack_name}}/{suffix}", StackLookup(deps, suffix))
        for suffix in LOOKUP_SUFFIXES
    ]
    return [
        Route("/stacks", StackCollection(deps)),
        Route("/stacks/detail", StackList(deps)),
        Route("/stacks/preview", StackPreview(deps)),
        Route("/stacks/{stack_name}", StackLookup(deps)),
        *lookups,
        Route(STACK, Stack(deps)),
        Route(STACK + "/preview", StackUpdatePreview(deps)),
    ]
