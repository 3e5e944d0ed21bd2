"""Resources of stacks: listing (nested stacks included), showing, metadata, signals, health.

What is shown is what the runtime stored: the current version of each resource, its state,
physical id and cached attribute values. ``required_by`` comes from the stack's current
definition, as in Heat.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from thermik.actors.stored import StoredResolution
from thermik.api.boundary import (
    Json,
    RequestContext,
    ResourceQuery,
    ResourceView,
    StackIdentity,
)
from thermik.deployments.source import resource_document
from thermik.errors import (
    InvalidBreakPointHook,
    InvalidSignal,
    InvalidTransition,
    LockConflict,
    NotFound,
    ResourceNotFound,
    ThermikError,
)
from thermik.orchestration.base import Base, identity_of
from thermik.orchestration.stack_user_access import check_stack_user
from thermik.orchestration.versions import current_resources
from thermik.orchestration.views import resource_view
from thermik.persistence.resource_values import NewEvent, Resource, ResourceChanges
from thermik.persistence.values import Stack
from thermik.template import StackDefinition
from thermik.template.registry import HOOK_TYPES

#: The key under which the runtime stores what ``get_resource`` returns.
REFERENCE_KEY = "__reference_id__"

_FILTERS: dict[str, Callable[[ResourceView], Sequence[str]]] = {
    "type": lambda v: (v.type,),
    "status": lambda v: (v.status, f"{v.action}_{v.status}"),
    "action": lambda v: (v.action,),
    "name": lambda v: (v.name,),
    "physical_resource_id": lambda v: (v.physical_resource_id or "",),
}


def resource_missing(name: str, stack: Stack) -> ResourceNotFound:
    """Heat's error for a resource a stack does not have."""
    return ResourceNotFound(
        f"The Resource ({name}) could not be found in Stack {stack.name}.", resource=name
    )


def _matches(view: ResourceView, filters: Mapping[str, tuple[str, ...]]) -> bool:
    for key, wanted in filters.items():
        field = _FILTERS.get(key)
        if field is not None and not set(field(view)) & set(wanted):
            return False
    return True


class ResourceOperations(Base):
    """The resource entry points."""

    def current_resource(self, stack: Stack, name: str) -> Resource:
        """The current version of resource ``name``, or ``ResourceNotFound``."""
        found = current_resources(self.store, stack).get(name)
        if found is None:
            raise resource_missing(name, stack)
        return found

    def _definition(self, stack: Stack) -> StackDefinition | None:
        try:
            return self.shown_definition(stack)
        except NotFound:
            return None

    def _attributes(self, resource: Resource, extra: Sequence[str] = ()) -> dict[str, Json]:
        stored = dict(self.store.get_resource_attributes(resource.id) or {})
        stored.pop(REFERENCE_KEY, None)
        for name in extra:
            stored.setdefault(name, None)
        return stored

    def _views(
        self, stack: Stack, children: Mapping[tuple[str, str], Stack], *, detail: bool
    ) -> list[ResourceView]:
        definition = self._definition(stack)
        required_by = definition.required_by() if definition is not None else {}
        identity = identity_of(stack)
        views = []
        for name, resource in current_resources(self.store, stack).items():
            nested = children.get((stack.id, name))
            described = definition.resources.get(name) if definition is not None else None
            views.append(
                resource_view(
                    resource,
                    identity,
                    required_by=sorted(required_by.get(name, ())),
                    description=described.description if described is not None else "",
                    attributes=self._attributes(resource) if detail else None,
                    nested_stack=identity_of(nested) if nested is not None else None,
                    parent_resource=stack.parent_resource_name,
                )
            )
        return views

    def _children(self, stack: Stack) -> dict[tuple[str, str], Stack]:
        return {
            (child.owner_id, child.parent_resource_name): child
            for child in self.store.list_stack_tree(stack.root_id)
            if child.owner_id is not None and child.parent_resource_name is not None
        }

    def list_resources(
        self, ctx: RequestContext, stack: StackIdentity, query: ResourceQuery
    ) -> Sequence[ResourceView]:
        row = self.find_stack(ctx, stack)
        children = self._children(row)
        level, views = [row], []
        for _ in range(max(query.nested_depth, 0) + 1):
            below: list[Stack] = []
            for current in level:
                views.extend(self._views(current, children, detail=query.with_detail))
                below.extend(c for (owner, _), c in children.items() if owner == current.id)
            level = below
        return [view for view in views if _matches(view, query.filters)]

    def show_resource(
        self,
        ctx: RequestContext,
        stack: StackIdentity,
        name: str,
        *,
        with_attr: Sequence[str] = (),
    ) -> ResourceView:
        row = self.find_stack(ctx, stack)
        resource = self.current_resource(row, name)
        definition = self._definition(row)
        described = definition.resources.get(name) if definition is not None else None
        nested = self._children(row).get((row.id, name))
        return resource_view(
            resource,
            identity_of(row),
            required_by=sorted(definition.required_by().get(name, ())) if definition else (),
            description=described.description if described is not None else "",
            attributes=self._attributes(resource, with_attr),
            nested_stack=identity_of(nested) if nested is not None else None,
            parent_resource=row.parent_resource_name,
        )

    def resource_metadata(
        self, ctx: RequestContext, stack: StackIdentity, name: str
    ) -> Mapping[str, Json]:
        """The template's ``metadata`` of the resource (resolved against what the runtime
        stored, as Heat stores it when it creates the resource), under what the engine wrote
        into the resource's metadata since; for a server with a metadata endpoint (a
        DeployedServer), under its ``os-collect-config`` section and ``deployments`` list,
        what its agent is served and what Heat shows (POLL_SERVER_HEAT agents read them
        here)."""
        row = self.find_stack(ctx, stack)
        resource = self.current_resource(row, name)
        check_stack_user(self.store, ctx, row, resource, "resource:metadata")
        shown = {**self._template_metadata(row, name), **resource.metadata}
        document = resource_document(self.store, resource, row.tenant)
        if document is not None:
            shown.update(document)
        return shown

    def _template_metadata(self, stack: Stack, name: str) -> dict[str, Json]:
        definition = self._definition(stack)
        if definition is None or name not in definition.resources:
            return {}
        try:
            return definition.resolve_metadata(name, StoredResolution(self.store, stack.id))
        except ThermikError:
            # Metadata that cannot be resolved (a function over an attribute the resource
            # does not have any more) is not a reason to refuse showing the rest.
            return {}

    def signal_resource(
        self, ctx: RequestContext, stack: StackIdentity, name: str, details: Json
    ) -> None:
        row = self.find_stack(ctx, stack, live=True)
        resource = self.current_resource(row, name)
        check_stack_user(self.store, ctx, row, resource, "resource:signal")
        if details is not None and not isinstance(details, Mapping):
            raise InvalidSignal(
                f"Signal data for resource {name} must be a JSON object, not "
                f"{type(details).__name__}",
                resource=name,
            )
        if details is not None and "unset_hook" in details:
            hook = details["unset_hook"]
            if hook not in HOOK_TYPES:
                raise InvalidBreakPointHook(
                    f'Invalid hook type "{hook}" for {name}', resource=name
                )
            self.runtime.signal(row.id, name, {"unset_hook": hook})
            return
        definition = self._definition(row)
        described = definition.resources.get(name) if definition is not None else None
        if described is None or not self._takes_signals(described.resolved.implementation):
            kind = described.type if described is not None else "unknown type"
            raise InvalidSignal(f"Resource {name} ({kind}) does not accept signals", resource=name)
        self.runtime.signal(row.id, name, details)

    def _takes_signals(self, implementation: str) -> bool:
        return implementation in self.registry and self.registry.get(implementation).takes_signals

    def mark_resource_unhealthy(
        self,
        ctx: RequestContext,
        stack: StackIdentity,
        name: str,
        *,
        unhealthy: bool,
        reason: str,
    ) -> None:
        row = self.find_stack(ctx, stack, live=True)
        resource = self.current_resource(row, name)
        if resource.status == "IN_PROGRESS":
            raise InvalidTransition(
                f"Resource {name} is {resource.action}_IN_PROGRESS: it cannot be marked "
                f"{'un' if unhealthy else ''}healthy now",
                resource=name,
            )
        if not unhealthy and (resource.action, resource.status) != ("CHECK", "FAILED"):
            return
        status = "FAILED" if unhealthy else "COMPLETE"
        reason = reason or "state changed by resource_mark_unhealthy api"
        self._set_check_state(row, resource, status, reason)

    def _set_check_state(self, stack: Stack, resource: Resource, status: str, reason: str) -> None:
        event = NewEvent(
            stack_id=stack.id,
            resource_name=resource.name,
            resource_action="CHECK",
            resource_status=status,
            resource_status_reason=reason,
            resource_type=resource.resource_type,
            physical_resource_id=resource.physical_resource_id,
        )
        changes = ResourceChanges(action="CHECK", status=status, status_reason=reason)
        try:
            self.store.update_resource(resource.id, resource.atomic_key, changes, event=event)
        except LockConflict:
            raise LockConflict(
                f"Resource {resource.name} is being worked on; try again when the stack's "
                "operation is over",
                resource=resource.name,
            ) from None
