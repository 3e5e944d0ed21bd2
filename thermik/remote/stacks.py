"""The stack half of the remote orchestration service: stacks' lifecycle, documents, outputs,
actions and snapshots over Heat's v1 API (``/stacks/...``).

The caller's context is the remote service's business (it knows the caller by the token), so
``ctx`` is not sent; a stack is addressed by its canonical ``/stacks/<name>/<id>`` path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from thermik.api.boundary import (
    ListQuery,
    OutputView,
    Page,
    RequestContext,
    ResourceChanges,
    SnapshotView,
    StackAction,
    StackIdentity,
    StackPreview,
    StackRequest,
    StackUpdate,
    StackView,
)
from thermik.clients.heat_wire import HeatTransport, segment
from thermik.errors import NotFound, RemoteUnavailable
from thermik.remote import bodies, views
from thermik.remote.views import mapping

Json = Any


def stack_path(stack: StackIdentity) -> str:
    """``/stacks/<name>/<id>``."""
    return f"/stacks/{segment(stack.name)}/{segment(stack.id)}"


class RemoteStacks:
    """``/stacks`` calls of the remote service (see the module docstring)."""

    def __init__(self, api: HeatTransport) -> None:
        self.api = api

    def create_stack(self, ctx: RequestContext, request: StackRequest) -> StackIdentity:
        created = self.api.call("POST", "/stacks", body=bodies.stack_body(request))
        stack_id = mapping(mapping(created).get("stack")).get("id")
        if not stack_id:
            raise RemoteUnavailable("the orchestration service did not say what it created")
        return StackIdentity(str(request.name), str(stack_id))

    def adopt_stack(self, ctx: RequestContext, request: StackRequest) -> StackIdentity:
        return self.create_stack(ctx, request)

    def preview_stack(self, ctx: RequestContext, request: StackRequest) -> StackPreview:
        answer = self.api.call("POST", "/stacks/preview", body=bodies.stack_body(request))
        return views.preview(mapping(mapping(answer).get("stack")))

    def list_stacks(self, ctx: RequestContext, query: ListQuery) -> Page[StackView]:
        found = mapping(self.api.call("GET", "/stacks", params=bodies.list_params(query)))
        items = tuple(views.stack(item) for item in found.get("stacks") or ())
        return Page(items, found.get("count"))

    def identify_stack(self, ctx: RequestContext, name_or_id: str) -> StackIdentity:
        where = self.api.location(f"/stacks/{segment(name_or_id)}")
        identity = views.identity_of_url(where) if where else None
        if identity is None:
            raise RemoteUnavailable(
                f"the orchestration service did not say where stack {name_or_id} is"
            )
        return identity

    def show_stack(
        self, ctx: RequestContext, stack: StackIdentity, *, resolve_outputs: bool = True
    ) -> StackView:
        params = {} if resolve_outputs else {"resolve_outputs": "False"}
        shown = mapping(self.api.call("GET", stack_path(stack), params=params))
        return views.stack(mapping(shown.get("stack")))

    def update_stack(self, ctx: RequestContext, stack: StackIdentity, update: StackUpdate) -> None:
        method = "PATCH" if update.existing else "PUT"
        self.api.call(method, stack_path(stack), body=bodies.update_body(update))

    def preview_update(
        self,
        ctx: RequestContext,
        stack: StackIdentity,
        update: StackUpdate,
        *,
        show_nested: bool = False,
    ) -> ResourceChanges:
        method = "PATCH" if update.existing else "PUT"
        params = {"show_nested": "True"} if show_nested else {}
        path = f"{stack_path(stack)}/preview"
        answer = self.api.call(method, path, body=bodies.update_body(update), params=params)
        changes = mapping(mapping(answer).get("resource_changes"))
        kinds = ("added", "deleted", "replaced", "unchanged", "updated")
        found = {
            kind: tuple(views.resource(item, stack) for item in changes.get(kind) or ())
            for kind in kinds
        }
        return ResourceChanges(**found)

    def delete_stack(self, ctx: RequestContext, stack: StackIdentity) -> None:
        self.api.call("DELETE", stack_path(stack))

    def abandon_stack(self, ctx: RequestContext, stack: StackIdentity) -> Mapping[str, Json]:
        return mapping(self.api.call("DELETE", f"{stack_path(stack)}/abandon"))

    def export_stack(self, ctx: RequestContext, stack: StackIdentity) -> Mapping[str, Json]:
        return mapping(self.api.call("GET", f"{stack_path(stack)}/export"))

    def stack_template(self, ctx: RequestContext, stack: StackIdentity) -> Mapping[str, Json]:
        return mapping(self.api.call("GET", f"{stack_path(stack)}/template"))

    def stack_environment(self, ctx: RequestContext, stack: StackIdentity) -> Mapping[str, Json]:
        return mapping(self.api.call("GET", f"{stack_path(stack)}/environment"))

    def stack_files(self, ctx: RequestContext, stack: StackIdentity) -> Mapping[str, str]:
        return mapping(self.api.call("GET", f"{stack_path(stack)}/files"))

    def list_outputs(self, ctx: RequestContext, stack: StackIdentity) -> Sequence[OutputView]:
        found = mapping(self.api.call("GET", f"{stack_path(stack)}/outputs"))
        return [views.output(item) for item in found.get("outputs") or ()]

    def show_output(self, ctx: RequestContext, stack: StackIdentity, key: str) -> OutputView:
        path = f"{stack_path(stack)}/outputs/{segment(key)}"
        shown = mapping(mapping(self.api.call("GET", path)).get("output"))
        if not shown:
            raise NotFound(f"Specified output key {key} not found.")
        return views.output(shown)

    def stack_action(self, ctx: RequestContext, stack: StackIdentity, action: StackAction) -> None:
        self.api.call("POST", f"{stack_path(stack)}/actions", body={action.value: None})

    def create_snapshot(
        self, ctx: RequestContext, stack: StackIdentity, name: str | None
    ) -> SnapshotView:
        path = f"{stack_path(stack)}/snapshots"
        return views.snapshot(mapping(self.api.call("POST", path, body={"name": name})))

    def list_snapshots(self, ctx: RequestContext, stack: StackIdentity) -> Sequence[SnapshotView]:
        found = mapping(self.api.call("GET", f"{stack_path(stack)}/snapshots"))
        return [views.snapshot(item) for item in found.get("snapshots") or ()]

    def show_snapshot(
        self, ctx: RequestContext, stack: StackIdentity, snapshot_id: str
    ) -> SnapshotView:
        path = f"{stack_path(stack)}/snapshots/{segment(snapshot_id)}"
        return views.snapshot(mapping(mapping(self.api.call("GET", path)).get("snapshot")))

    def delete_snapshot(self, ctx: RequestContext, stack: StackIdentity, snapshot_id: str) -> None:
        self.api.call("DELETE", f"{stack_path(stack)}/snapshots/{segment(snapshot_id)}")

    def restore_snapshot(
        self, ctx: RequestContext, stack: StackIdentity, snapshot_id: str
    ) -> None:
        path = f"{stack_path(stack)}/snapshots/{segment(snapshot_id)}/restore"
        self.api.call("POST", path)
