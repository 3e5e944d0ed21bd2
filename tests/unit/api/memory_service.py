"""A small, real, dict-backed implementation of the API's OrchestrationService for tests.

Stacks converge instantly: every operation records the stack-level and resource events a real
engine would, so clients' ``--wait`` loops and event paging work against it. Templates are plain
HOT mappings (or YAML text); only ``get_resource`` is resolved in outputs. Every lookup is scoped
by the caller's tenant, like the real service.
"""

from __future__ import annotations

import dataclasses
import datetime
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ParamSpec, TypeVar

from tests.unit.api.memory_catalog import MemoryCatalog, parse_document
from tests.unit.api.memory_software import MemorySoftware
from thermik import errors
from thermik.api.boundary import (
    EventQuery,
    EventView,
    ListQuery,
    OutputView,
    Page,
    RequestContext,
    ResourceChanges,
    ResourceQuery,
    ResourceView,
    SnapshotView,
    SortDir,
    StackAction,
    StackIdentity,
    StackPreview,
    StackRequest,
    StackUpdate,
    StackView,
)

P = ParamSpec("P")
R = TypeVar("R")
EPOCH = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


def locked(method: Callable[P, R]) -> Callable[P, R]:
    """Serialise a public method (the live-server tests call from several threads)."""

    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with args[0]._lock:  # type: ignore[attr-defined]
            return method(*args, **kwargs)

    run.__name__ = method.__name__
    return run


@dataclasses.dataclass
class Resource:
    """A resource row."""

    name: str
    type: str
    action: str = "INIT"
    status: str = "COMPLETE"
    reason: str = ""
    physical_id: str = dataclasses.field(default_factory=lambda: str(uuid.uuid4()))
    metadata: dict[str, Any] = dataclasses.field(default_factory=dict)
    properties: dict[str, Any] = dataclasses.field(default_factory=dict)
    depends_on: tuple[str, ...] = ()
    signals: list[Any] = dataclasses.field(default_factory=list)
    created: datetime.datetime | None = None
    updated: datetime.datetime | None = None


@dataclasses.dataclass
class Stack:
    """A stack row."""

    tenant: str
    identity: StackIdentity
    template: dict[str, Any]
    environment: dict[str, Any]
    files: dict[str, str]
    parameters: dict[str, Any]
    tags: tuple[str, ...]
    disable_rollback: bool
    timeout_mins: int | None
    owner: str | None
    created: datetime.datetime
    action: str = "CREATE"
    status: str = "IN_PROGRESS"
    reason: str = ""
    updated: datetime.datetime | None = None
    deleted: datetime.datetime | None = None
    resources: dict[str, Resource] = dataclasses.field(default_factory=dict)
    events: list[EventView] = dataclasses.field(default_factory=list)
    snapshots: dict[str, SnapshotView] = dataclasses.field(default_factory=dict)


class MemoryService(MemoryCatalog, MemorySoftware):
    """The whole OrchestrationService over dicts; see the module docstring."""

    def __init__(self) -> None:
        MemorySoftware.__init__(self)
        self._lock = threading.RLock()
        self.stacks: dict[str, Stack] = {}
        self._ticks = 0

    # -- helpers -------------------------------------------------------------------------------

    def now(self) -> datetime.datetime:
        """A clock that moves one second per call, so ordering by time is deterministic."""
        self._ticks += 1
        return EPOCH + datetime.timedelta(seconds=self._ticks)

    def _stack(self, ctx: RequestContext, stack: StackIdentity) -> Stack:
        row = self.stacks.get(stack.id)
        if row is None or row.tenant != ctx.tenant or row.identity.name != stack.name:
            raise errors.StackNotFound(f"The Stack ({stack.name}) could not be found.")
        return row

    def _live(self, ctx: RequestContext, stack: StackIdentity) -> Stack:
        row = self._stack(ctx, stack)
        if row.deleted is not None:
            raise errors.StackNotFound(f"The Stack ({stack.name}) could not be found.")
        return row

    def _resource(self, row: Stack, name: str) -> Resource:
        if name not in row.resources:
            raise errors.ResourceNotFound(
                f"The Resource ({name}) could not be found in Stack {row.identity.name}.",
                resource=name,
            )
        return row.resources[name]

    def _event(self, row: Stack, name: str, kind: str, action: str, status: str) -> None:
        physical = (
            row.identity.id if kind == "OS::Heat::Stack" else row.resources[name].physical_id
        )
        row.events.append(
            EventView(
                id=str(uuid.uuid4()),
                stack=row.identity,
                resource_name=name,
                resource_type=kind,
                action=action,
                status=status,
                status_reason=f"state changed ({action} {status})",
                physical_resource_id=physical,
                event_time=self.now(),
                resource_properties={},
            )
        )

    def _converge(self, row: Stack, action: str, names: Sequence[str]) -> None:
        """Run ``action`` to COMPLETE on ``names``, recording events like an engine."""
        row.action, row.status = action, "IN_PROGRESS"
        self._event(row, row.identity.name, "OS::Heat::Stack", action, "IN_PROGRESS")
        for name in names:
            resource = row.resources[name]
            self._event(row, name, resource.type, action, "IN_PROGRESS")
            resource.action, resource.status = action, "COMPLETE"
            resource.updated = self.now()
            resource.created = resource.created or resource.updated
            self._event(row, name, resource.type, action, "COMPLETE")
        row.status, row.reason = "COMPLETE", f"Stack {action} completed successfully"
        self._event(row, row.identity.name, "OS::Heat::Stack", action, "COMPLETE")

    def _load(self, row: Stack, template: dict[str, Any]) -> None:
        definitions = template.get("resources") or {}
        if not isinstance(definitions, dict):
            raise errors.TemplateError("must be a mapping", path=("resources",))
        kept = {}
        for name, definition in definitions.items():
            if not isinstance(definition, dict) or not isinstance(definition.get("type"), str):
                raise errors.TemplateError("must have a type", path=("resources", str(name)))
            depends = definition.get("depends_on") or ()
            resource = row.resources.get(name) or Resource(name=str(name), type=definition["type"])
            resource.type = definition["type"]
            resource.metadata = dict(definition.get("metadata") or {})
            resource.properties = dict(definition.get("properties") or {})
            resource.depends_on = (depends,) if isinstance(depends, str) else tuple(depends)
            kept[str(name)] = resource
        row.resources = kept
        row.template = template

    def _parameters(self, template: dict[str, Any], given: Mapping[str, Any]) -> dict[str, Any]:
        declared = template.get("parameters") or {}
        for name in given:
            if name not in declared:
                raise errors.ParameterError(
                    f"The Parameter ({name}) was not defined in template.", parameter=name
                )
        values = {
            name: spec.get("default")
            for name, spec in declared.items()
            if isinstance(spec, dict) and "default" in spec
        }
        values.update(given)
        missing = sorted(set(declared) - set(values))
        if missing:
            raise errors.ParameterError(
                f"The Parameter ({missing[0]}) was not provided.", parameter=missing[0]
            )
        return values

    def _template(self, request: StackRequest) -> dict[str, Any]:
        if request.template_url is not None and request.template is None:
            raise errors.InvalidInput("template_url is not supported", path=("template_url",))
        template = parse_document(request.template, "template")
        if "heat_template_version" not in template:
            raise errors.TemplateVersionError("Template version was not provided")
        return template

    def _new_stack(self, ctx: RequestContext, request: StackRequest) -> Stack:
        assert request.name is not None
        for row in self.stacks.values():
            if row.tenant == ctx.tenant and row.identity.name == request.name and not row.deleted:
                raise errors.DuplicateName(f"The Stack ({request.name}) already exists.")
        template = self._template(request)
        row = Stack(
            tenant=ctx.tenant,
            identity=StackIdentity(request.name, str(uuid.uuid4())),
            template={},
            environment=parse_document(request.environment, "environment"),
            files=dict(request.files),
            parameters=self._parameters(template, request.parameters),
            tags=request.tags or (),
            disable_rollback=True
            if request.disable_rollback is None
            else request.disable_rollback,
            timeout_mins=request.timeout_mins,
            owner=ctx.user,
            created=self.now(),
        )
        self._load(row, template)
        return row

    # -- views ---------------------------------------------------------------------------------

    def _outputs(self, row: Stack) -> tuple[OutputView, ...]:
        outputs = []
        for key, spec in (row.template.get("outputs") or {}).items():
            value = spec.get("value")
            error = None
            if isinstance(value, dict) and set(value) == {"get_resource"}:
                target = row.resources.get(value["get_resource"])
                value = target.physical_id if target else None
                error = None if target else f"Resource {spec['value']['get_resource']} missing"
            outputs.append(OutputView(str(key), spec.get("description"), value, error))
        return tuple(outputs)

    def view(
        self, row: Stack, *, resolve_outputs: bool = True, project: bool = False
    ) -> StackView:
        """The API view of a stack row."""
        declared = row.template.get("parameters") or {}
        return StackView(
            identity=row.identity,
            action=row.action,
            status=row.status,
            status_reason=row.reason,
            description=str(row.template.get("description", "")),
            template_description=str(row.template.get("description", "")),
            creation_time=row.created,
            updated_time=row.updated,
            deletion_time=row.deleted,
            parameters=dict(row.parameters),
            hidden_parameters=frozenset(
                name
                for name, spec in declared.items()
                if isinstance(spec, dict) and spec.get("hidden")
            ),
            outputs=self._outputs(row) if resolve_outputs else None,
            disable_rollback=row.disable_rollback,
            timeout_mins=row.timeout_mins,
            tags=row.tags,
            owner=row.owner,
            project=row.tenant if project else None,
        )

    def _resource_view(
        self, row: Stack, resource: Resource, attrs: Sequence[str] = ()
    ) -> ResourceView:
        return ResourceView(
            name=resource.name,
            stack=row.identity,
            type=resource.type,
            action=resource.action,
            status=resource.status,
            status_reason=resource.reason,
            physical_resource_id=resource.physical_id,
            creation_time=resource.created,
            updated_time=resource.updated,
            required_by=tuple(
                other.name for other in row.resources.values() if resource.name in other.depends_on
            ),
            attributes={name: None for name in attrs},
        )

    # -- stacks --------------------------------------------------------------------------------

    @locked
    def create_stack(self, ctx: RequestContext, request: StackRequest) -> StackIdentity:
        row = self._new_stack(ctx, request)
        self.stacks[row.identity.id] = row
        self._converge(row, "CREATE", list(row.resources))
        return row.identity

    @locked
    def adopt_stack(self, ctx: RequestContext, request: StackRequest) -> StackIdentity:
        data = dict(request.adopt_data or {})
        request = dataclasses.replace(request, template=request.template or data.get("template"))
        row = self._new_stack(ctx, request)
        self.stacks[row.identity.id] = row
        self._converge(row, "ADOPT", list(row.resources))
        return row.identity

    @locked
    def preview_stack(self, ctx: RequestContext, request: StackRequest) -> StackPreview:
        row = self._new_stack(ctx, request)
        resources = tuple(
            dataclasses.replace(self._resource_view(row, res), properties=res.properties)
            for res in row.resources.values()
        )
        return StackPreview(stack=self.view(row), resources=resources)

    @locked
    def list_stacks(self, ctx: RequestContext, query: ListQuery) -> Page[StackView]:
        rows = [
            row
            for row in self.stacks.values()
            if (query.global_tenant or row.tenant == ctx.tenant)
            and (query.show_deleted or row.deleted is None)
            and _matches(row, query)
        ]
        key = (query.sort_keys or ("created_at",))[0]
        rows.sort(key=_SORT_KEYS.get(key, _SORT_KEYS["created_at"]))
        if query.sort_dir is SortDir.DESC:
            rows.reverse()
        total = len(rows)
        if query.marker is not None:
            ids = [row.identity.id for row in rows]
            if query.marker not in ids:
                raise errors.InvalidRequest(f"marker {query.marker} not found", parameter="marker")
            rows = rows[ids.index(query.marker) + 1 :]
        if query.limit is not None:
            rows = rows[: query.limit]
        views = tuple(
            self.view(row, resolve_outputs=False, project=query.global_tenant) for row in rows
        )
        return Page(items=views, count=total if query.with_count else None)

    @locked
    def identify_stack(self, ctx: RequestContext, name_or_id: str) -> StackIdentity:
        try:
            uuid.UUID(name_or_id)
        except ValueError:
            for row in self.stacks.values():
                if (
                    row.tenant == ctx.tenant
                    and row.identity.name == name_or_id
                    and not row.deleted
                ):
                    return row.identity
        else:
            row = self.stacks.get(name_or_id)
            if row is not None and row.tenant == ctx.tenant:
                return row.identity
        raise errors.StackNotFound(f"The Stack ({name_or_id}) could not be found.")

    @locked
    def show_stack(
        self, ctx: RequestContext, stack: StackIdentity, *, resolve_outputs: bool = True
    ) -> StackView:
        return self.view(self._stack(ctx, stack), resolve_outputs=resolve_outputs)

    def _apply_update(
        self, ctx: RequestContext, row: Stack, update: StackUpdate
    ) -> dict[str, Any]:
        request = update.request
        if row.status == "IN_PROGRESS":
            raise errors.InvalidTransition(f"Stack {row.identity.name} has an action in progress")
        if request.template is None and update.existing:
            template = row.template
        else:
            template = self._template(request)
        given = dict(row.parameters) if update.existing else {}
        for name in update.clear_parameters:
            given.pop(name, None)
        given.update(request.parameters)
        declared = template.get("parameters") or {}
        given = {k: v for k, v in given.items() if k in declared or k in request.parameters}
        row.parameters = self._parameters(template, given)
        if request.tags is not None:
            row.tags = request.tags
        if request.disable_rollback is not None:
            row.disable_rollback = request.disable_rollback
        return template

    @locked
    def update_stack(self, ctx: RequestContext, stack: StackIdentity, update: StackUpdate) -> None:
        row = self._live(ctx, stack)
        template = self._apply_update(ctx, row, update)
        self._load(row, template)
        row.updated = self.now()
        self._converge(row, "UPDATE", list(row.resources))

    @locked
    def preview_update(
        self,
        ctx: RequestContext,
        stack: StackIdentity,
        update: StackUpdate,
        *,
        show_nested: bool = False,
    ) -> ResourceChanges:
        row = self._live(ctx, stack)
        template = self._template(update.request) if update.request.template else row.template
        new = set(template.get("resources") or {})
        old = set(row.resources)
        unchanged = tuple(self._resource_view(row, row.resources[n]) for n in sorted(old & new))
        deleted = tuple(self._resource_view(row, row.resources[n]) for n in sorted(old - new))
        added = tuple(
            ResourceView(
                name=n,
                stack=row.identity,
                type=template["resources"][n]["type"],
                action="INIT",
                status="COMPLETE",
            )
            for n in sorted(new - old)
        )
        return ResourceChanges(added=added, deleted=deleted, unchanged=unchanged)

    @locked
    def delete_stack(self, ctx: RequestContext, stack: StackIdentity) -> None:
        row = self._live(ctx, stack)
        self._converge(row, "DELETE", list(reversed(row.resources)))
        row.deleted = self.now()

    def _abandon_document(self, row: Stack) -> dict[str, Any]:
        return {
            "name": row.identity.name,
            "id": row.identity.id,
            "action": row.action,
            "status": row.status,
            "template": row.template,
            "environment": row.environment,
            "files": row.files,
            "resources": {
                name: {
                    "name": name,
                    "resource_id": res.physical_id,
                    "type": res.type,
                    "action": res.action,
                    "status": res.status,
                    "metadata": res.metadata,
                    "resource_data": {},
                }
                for name, res in row.resources.items()
            },
            "project_id": row.tenant,
            "stack_user_project_id": None,
            "tags": list(row.tags),
        }

    @locked
    def abandon_stack(self, ctx: RequestContext, stack: StackIdentity) -> Mapping[str, Any]:
        row = self._live(ctx, stack)
        document = self._abandon_document(row)
        del self.stacks[row.identity.id]
        return document

    @locked
    def export_stack(self, ctx: RequestContext, stack: StackIdentity) -> Mapping[str, Any]:
        return self._abandon_document(self._live(ctx, stack))

    @locked
    def stack_template(self, ctx: RequestContext, stack: StackIdentity) -> Mapping[str, Any]:
        return self._stack(ctx, stack).template

    @locked
    def stack_environment(self, ctx: RequestContext, stack: StackIdentity) -> Mapping[str, Any]:
        return self._stack(ctx, stack).environment

    @locked
    def stack_files(self, ctx: RequestContext, stack: StackIdentity) -> Mapping[str, str]:
        return self._stack(ctx, stack).files

    @locked
    def list_outputs(self, ctx: RequestContext, stack: StackIdentity) -> Sequence[OutputView]:
        return [
            OutputView(o.key, o.description, resolved=False)
            for o in self._outputs(self._stack(ctx, stack))
        ]

    @locked
    def show_output(self, ctx: RequestContext, stack: StackIdentity, key: str) -> OutputView:
        for output in self._outputs(self._stack(ctx, stack)):
            if output.key == key:
                return output
        raise errors.NotFound(f"Specified output key {key} not found.")

    @locked
    def stack_action(self, ctx: RequestContext, stack: StackIdentity, action: StackAction) -> None:
        row = self._live(ctx, stack)
        if action in (StackAction.CANCEL_UPDATE, StackAction.CANCEL_WITHOUT_ROLLBACK):
            if (row.action, row.status) != ("UPDATE", "IN_PROGRESS"):
                raise errors.InvalidTransition(
                    f"Cancelling update when stack is {row.action}_{row.status}"
                )
            self._converge(row, "ROLLBACK", list(row.resources))
            return
        if row.status != "COMPLETE":
            raise errors.InvalidTransition(f"Stack is {row.action}_{row.status}")
        self._converge(row, action.value.upper(), list(row.resources))

    # -- snapshots -----------------------------------------------------------------------------

    @locked
    def create_snapshot(
        self, ctx: RequestContext, stack: StackIdentity, name: str | None
    ) -> SnapshotView:
        row = self._live(ctx, stack)
        snapshot = SnapshotView(
            id=str(uuid.uuid4()),
            name=name,
            status="COMPLETE",
            data=self._abandon_document(row),
            creation_time=self.now(),
        )
        row.snapshots[snapshot.id] = snapshot
        return snapshot

    @locked
    def list_snapshots(self, ctx: RequestContext, stack: StackIdentity) -> Sequence[SnapshotView]:
        return list(self._live(ctx, stack).snapshots.values())

    def _snapshot(self, row: Stack, snapshot_id: str) -> SnapshotView:
        if snapshot_id not in row.snapshots:
            raise errors.NotFound(f"The Snapshot ({snapshot_id}) could not be found.")
        return row.snapshots[snapshot_id]

    @locked
    def show_snapshot(
        self, ctx: RequestContext, stack: StackIdentity, snapshot_id: str
    ) -> SnapshotView:
        return self._snapshot(self._live(ctx, stack), snapshot_id)

    @locked
    def delete_snapshot(self, ctx: RequestContext, stack: StackIdentity, snapshot_id: str) -> None:
        row = self._live(ctx, stack)
        self._snapshot(row, snapshot_id)
        del row.snapshots[snapshot_id]

    @locked
    def restore_snapshot(
        self, ctx: RequestContext, stack: StackIdentity, snapshot_id: str
    ) -> None:
        row = self._live(ctx, stack)
        data = self._snapshot(row, snapshot_id).data or {}
        self._load(row, dict(data.get("template") or {}))
        self._converge(row, "RESTORE", list(row.resources))

    # -- resources and events ------------------------------------------------------------------

    @locked
    def list_resources(
        self, ctx: RequestContext, stack: StackIdentity, query: ResourceQuery
    ) -> Sequence[ResourceView]:
        row = self._stack(ctx, stack)
        views = [self._resource_view(row, res) for res in row.resources.values()]
        checks: dict[str, Callable[[ResourceView], str]] = {
            "type": lambda v: v.type,
            "status": lambda v: v.status,
            "action": lambda v: v.action,
            "name": lambda v: v.name,
            "physical_resource_id": lambda v: v.physical_resource_id or "",
        }
        for key, wanted in query.filters.items():
            if key in checks:
                views = [v for v in views if checks[key](v) in wanted]
        return views

    @locked
    def show_resource(
        self,
        ctx: RequestContext,
        stack: StackIdentity,
        name: str,
        *,
        with_attr: Sequence[str] = (),
    ) -> ResourceView:
        row = self._stack(ctx, stack)
        return self._resource_view(row, self._resource(row, name), with_attr)

    @locked
    def resource_metadata(
        self, ctx: RequestContext, stack: StackIdentity, name: str
    ) -> Mapping[str, Any]:
        row = self._stack(ctx, stack)
        return self._resource(row, name).metadata

    @locked
    def signal_resource(
        self, ctx: RequestContext, stack: StackIdentity, name: str, details: Any
    ) -> None:
        row = self._live(ctx, stack)
        self._resource(row, name).signals.append(details)

    @locked
    def mark_resource_unhealthy(
        self, ctx: RequestContext, stack: StackIdentity, name: str, *, unhealthy: bool, reason: str
    ) -> None:
        resource = self._resource(self._live(ctx, stack), name)
        if unhealthy:
            resource.action, resource.status, resource.reason = "CHECK", "FAILED", reason

    @locked
    def list_events(
        self, ctx: RequestContext, stack: StackIdentity, query: EventQuery
    ) -> Sequence[EventView]:
        row = self._stack(ctx, stack)
        events = list(row.events)
        if query.resource_name is not None:
            events = [e for e in events if e.resource_name == query.resource_name]
            if not events:
                raise errors.ResourceNotFound(f"Resource {query.resource_name} not found")
        for key, wanted in query.filters.items():
            events = [e for e in events if _EVENT_FIELDS[key](e) in wanted]
        if query.sort_dir is SortDir.DESC:
            events.reverse()
        if query.marker is not None:
            ids = [e.id for e in events]
            events = events[ids.index(query.marker) + 1 :] if query.marker in ids else []
        return events[: query.limit] if query.limit is not None else events

    @locked
    def show_event(
        self, ctx: RequestContext, stack: StackIdentity, resource_name: str, event_id: str
    ) -> EventView:
        for event in self._stack(ctx, stack).events:
            if event.id == event_id and event.resource_name == resource_name:
                return event
        raise errors.NotFound(f"The Event ({event_id}) could not be found.")


_SORT_KEYS: dict[str, Callable[[Stack], Any]] = {
    "created_at": lambda row: row.created,
    "updated_at": lambda row: row.updated or row.created,
    "name": lambda row: row.identity.name,
    "stack_name": lambda row: row.identity.name,
    "status": lambda row: row.status,
}

_EVENT_FIELDS: dict[str, Callable[[EventView], str]] = {
    "resource_action": lambda e: e.action,
    "resource_status": lambda e: e.status,
    "resource_name": lambda e: e.resource_name,
    "resource_type": lambda e: e.resource_type,
}


def _matches(row: Stack, query: ListQuery) -> bool:
    fields = {
        "id": row.identity.id,
        "name": row.identity.name,
        "status": row.status,
        "action": row.action,
        "tenant": row.tenant,
        "username": row.owner or "",
    }
    for key, wanted in query.filters.items():
        if key in fields and fields[key] not in wanted:
            return False
    tags = set(row.tags)
    return (
        set(query.tags) <= tags
        and (not query.tags_any or bool(tags & set(query.tags_any)))
        and not (query.not_tags and set(query.not_tags) <= tags)
        and not (tags & set(query.not_tags_any))
    )
