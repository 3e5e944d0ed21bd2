"""The engine side of nested stacks: child stacks as full stacks of the same engine.

:class:`NestedStacks` implements
:class:`~thermik.resources.nested_services.NestedStackServices`. A child is checked like a
top-level stack (:func:`~thermik.orchestration.prepare.prepare`), stored with its owner, parent
resource, root and depth, and converged by its own stack actor through the runtime, like any
stack: its operations are ordinary traversals, recovered after a crash like any other. The
runtime wakes the parent resource when a child's traversal ends
(``EngineRuntime._notify_settled``), so parents do not poll running children.

As in Heat, a child is named ``<parent>-<resource>-<short id>``, inherits the parent's
environment (resource registry scoped to the resource, ``parameter_defaults``), tenant, user
and timeout, and has rollback disabled (the parent decides).
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC
from typing import Any

from thermik.actors.facade import stack_definition
from thermik.actors.runtime import ConvergeRequest
from thermik.actors.stored import StoredResolution, current_versions
from thermik.conf.settings import LimitSettings
from thermik.engine.states import Action
from thermik.errors import InvalidInput, InvalidTransition, NotFound, PluginError, ThermikError
from thermik.orchestration.base import Runtime, definition_of
from thermik.orchestration.prepare import Prepared, prepare
from thermik.orchestration.stored_templates import dropped_if_refused
from thermik.persistence.resource_values import EventQuery
from thermik.persistence.store import Store
from thermik.persistence.values import NewStack, Stack
from thermik.resources import Registry
from thermik.resources.context import ResourceContext, physical_resource_name
from thermik.resources.nested_services import (
    CHILD_KEY,
    DEFAULT_FALLBACK_POLL,
    NestedState,
    NestedTemplate,
)
from thermik.template import Environment, Identity, StackDefinition, Template
from thermik.template.registry import ResolvedType

#: Minutes a stack that sets no timeout has (the ``default_stack_timeout`` default).
DEFAULT_TIMEOUT_MINS = 60

#: Operations a parent may start on its child with :meth:`NestedStacks.act`.
_ACTS = {
    "SUSPEND": Action.SUSPEND,
    "RESUME": Action.RESUME,
    "CHECK": Action.CHECK,
    "SNAPSHOT": Action.SNAPSHOT,
}


class NestedStacks:
    """Child stacks, for the nested-stack plugins (``ctx.nested``).

    Built before the runtime (the runtime's contexts hand it out) and attached to it once the
    runtime runs (:meth:`attach`).
    """

    def __init__(
        self,
        store: Store,
        registry: Registry,
        limits: LimitSettings,
        *,
        fallback_poll: float = DEFAULT_FALLBACK_POLL,
        default_timeout_mins: int = DEFAULT_TIMEOUT_MINS,
    ) -> None:
        self.store = store
        self.registry = registry
        self.limits = limits
        #: A stack's timeout when it sets none (``default_stack_timeout``).
        self.default_timeout_mins = default_timeout_mins
        #: Seconds between the safety-net polls of a running child (see ``fallback_poll``).
        self.fallback_poll = fallback_poll
        self._runtime: Runtime | None = None

    def attach(self, runtime: Runtime) -> None:
        """Start children on ``runtime`` from now on."""
        self._runtime = runtime

    @property
    def runtime(self) -> Runtime:
        """The runtime children run on."""
        if self._runtime is None:
            raise PluginError("nested stacks: the engine is not running yet")
        return self._runtime

    # -- operations ---------------------------------------------------------------------------

    def create(self, ctx: ResourceContext, nested: NestedTemplate) -> str:
        """See :meth:`NestedStackServices.create`."""
        parent = self.store.get_stack(ctx.stack.id)
        depth = parent.nested_depth + 1
        if depth > self.limits.max_nested_stack_depth:
            raise PluginError(
                f"Recursion depth exceeds {self.limits.max_nested_stack_depth}.",
                resource=ctx.resource_name,
            )
        earlier = self._earlier_child(ctx)
        if earlier is not None:
            return earlier
        stack_id = str(uuid.uuid4())
        name = physical_resource_name(ctx)
        identity = Identity(stack_name=name, stack_id=stack_id, project_id=parent.tenant)
        prepared = self._prepare(ctx, parent, nested, identity)
        template_id = self._store_template(prepared)
        # Recorded before the child exists: an interrupted create leaves no orphan.
        ctx.data.set(CHILD_KEY, stack_id)
        row = _child_row(ctx, parent, nested, template_id, name, stack_id)
        start = ConvergeRequest(stack_id, Action.CREATE, template_id=template_id)
        with dropped_if_refused(self.store, template_id):
            self.runtime.create(row, start)
        return stack_id

    def _earlier_child(self, ctx: ResourceContext) -> str | None:
        """The child a create of this resource version stored before it was interrupted."""
        stack_id = ctx.data.get(CHILD_KEY)
        if stack_id is None:
            return None
        try:
            child = self.store.get_stack(stack_id)
        except NotFound:
            return None
        if child.action == Action.INIT.value:
            self._start_create(child)
        return child.id

    def _start_create(self, child: Stack) -> None:
        self.runtime.converge(
            ConvergeRequest(
                stack_id=child.id,
                operation=Action.CREATE,
                template_id=child.raw_template_id,
                expected_traversal=child.current_traversal,
            )
        )

    def update(self, ctx: ResourceContext, stack_id: str, nested: NestedTemplate) -> None:
        """See :meth:`NestedStackServices.update`."""
        child = self.store.get_stack(stack_id)
        parent = self.store.get_stack(ctx.stack.id)
        identity = Identity(stack_name=child.name, stack_id=child.id, project_id=child.tenant)
        prepared = self._prepare(ctx, parent, nested, identity)
        template_id = self._store_template(prepared)
        with dropped_if_refused(self.store, template_id):
            self.runtime.converge(
                ConvergeRequest(
                    stack_id=child.id,
                    operation=Action.UPDATE,
                    template_id=template_id,
                    timeout_mins=nested.timeout_mins or parent.timeout_mins,
                )
            )

    def delete(self, ctx: ResourceContext, stack_id: str) -> None:
        """See :meth:`NestedStackServices.delete`."""
        try:
            child = self.store.get_stack(stack_id)
        except NotFound:
            return
        if child.action == Action.DELETE.value and child.status == "IN_PROGRESS":
            return
        self.runtime.converge(ConvergeRequest(stack_id=child.id, operation=Action.DELETE))

    def act(self, ctx: ResourceContext, stack_id: str, action: str) -> None:
        """See :meth:`NestedStackServices.act`."""
        operation = _ACTS.get(action)
        if operation is None:
            raise InvalidInput(f"{action} is not an action of a nested stack")
        child = self.store.get_stack(stack_id)
        snapshot_id = None
        if operation is Action.SNAPSHOT:
            snapshot_id = self.store.create_snapshot(child.id, child.tenant, None).id
        self.runtime.converge(
            ConvergeRequest(
                stack_id=child.id,
                operation=operation,
                expected_traversal=child.current_traversal,
                snapshot_id=snapshot_id,
            )
        )

    def cancel(self, ctx: ResourceContext, stack_id: str) -> None:
        """See :meth:`NestedStackServices.cancel`."""
        try:
            child = self.store.get_stack(stack_id)
        except NotFound:
            return
        if child.status != "IN_PROGRESS" or child.action not in ("CREATE", "UPDATE"):
            return
        try:
            self.runtime.cancel(child.id, rollback=False)
        except (InvalidTransition, NotFound):
            return  # it ended meanwhile

    # -- reading ------------------------------------------------------------------------------

    def _definition(self, child: Stack) -> StackDefinition:
        raw = self.store.get_raw_template(child.raw_template_id)
        return definition_of(raw, child, self.limits.function_budget())

    def state(self, ctx: ResourceContext, stack_id: str) -> NestedState:
        """See :meth:`NestedStackServices.state`."""
        child = self.store.get_stack(stack_id, show_deleted=True)
        return NestedState(child.id, child.action, child.status, child.status_reason, child.name)

    def ended_at(self, ctx: ResourceContext, stack_id: str) -> float | None:
        """See :meth:`NestedTimes.ended_at`: the child's latest stack event."""
        child = self.store.get_stack(stack_id, show_deleted=True)
        if child.status == "IN_PROGRESS":
            return None
        query = EventQuery(child.id, limit=1, sort_dir="desc", resource_name=child.name)
        events = self.store.list_events(query)
        if not events:
            return None
        when = events[0].created_at
        return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()

    def outputs(self, ctx: ResourceContext, stack_id: str) -> Mapping[str, Any]:
        """See :meth:`NestedStackServices.outputs`."""
        child = self.store.get_stack(stack_id, show_deleted=True)
        definition = self._definition(child)
        results = definition.resolve_outputs(StoredResolution(self.store, child.id))
        return {name: r.value for name, r in results.items() if r.error is None}

    def output_error(self, ctx: ResourceContext, stack_id: str, name: str) -> str | None:
        """See :meth:`NestedStackServices.output_error`."""
        child = self.store.get_stack(stack_id, show_deleted=True)
        definition = self._definition(child)
        if name not in definition.outputs:
            return None
        try:
            definition.resolve_output(name, StoredResolution(self.store, child.id))
        except ThermikError as exc:
            return exc.message
        return None

    def resource_names(self, ctx: ResourceContext, stack_id: str) -> Sequence[str]:
        """See :meth:`NestedStackServices.resource_names`."""
        child = self.store.get_stack(stack_id, show_deleted=True)
        definition = self._definition(child)
        return list(definition.resources)

    def resource_reference(self, ctx: ResourceContext, stack_id: str, name: str) -> Any:
        """See :meth:`NestedStackServices.resource_reference`."""
        return StoredResolution(self.store, stack_id).reference_id(name)

    def resource_references(self, ctx: ResourceContext, stack_id: str) -> Mapping[str, Any]:
        """See :meth:`NestedBatchReads.resource_references`."""
        resolution = StoredResolution(self.store, stack_id)
        return {name: resolution.reference_id(name) for name in self.resource_names(ctx, stack_id)}

    def attribute_of_resources(
        self, ctx: ResourceContext, stack_id: str, names: Sequence[str], path: Sequence[str | int]
    ) -> Mapping[str, Any]:
        """See :meth:`NestedBatchReads.attribute_of_resources`."""
        if not path:
            raise InvalidInput("get_attr of nested resources names no attribute")
        present = set(self.resource_names(ctx, stack_id))
        resolution = StoredResolution(self.store, stack_id)
        attr, *rest = path
        return {
            name: resolution.attribute(name, str(attr), rest) if name in present else None
            for name in names
        }

    def resource_attribute(
        self, ctx: ResourceContext, stack_id: str, name: str, path: Sequence[str | int]
    ) -> Any:
        """See :meth:`NestedStackServices.resource_attribute`."""
        if not path:
            raise InvalidInput(f"get_attr of nested resource {name} names no attribute")
        if name not in self.resource_names(ctx, stack_id):
            raise InvalidInput(f"The nested stack has no resource {name}", resource=name)
        attr, *rest = path
        return StoredResolution(self.store, stack_id).attribute(name, str(attr), rest)

    def resource_attributes(
        self, ctx: ResourceContext, stack_id: str, name: str
    ) -> Mapping[str, Any]:
        """Every stored attribute value of the child's resource ``name`` (not part of the
        Protocol: template resources use it for ``get_attr: [r, resource.<name>, <attr>]``)."""
        return dict(StoredResolution(self.store, stack_id).all_attributes(name))

    # -- signals between the resources of a stack (PeerSignals) -------------------------

    def signal_peer(
        self, ctx: ResourceContext, reference_id: str, data: Mapping[str, Any] | None
    ) -> str:
        """See :meth:`PeerSignals.signal_peer`."""
        stack = self.store.get_stack(ctx.stack.id)
        rows = current_versions(self.store.list_resources(stack.id), stack.raw_template_id)
        by_id = [name for name, row in rows.items() if row.physical_resource_id == reference_id]
        name = by_id[0] if by_id else reference_id
        if name not in rows:
            raise NotFound(
                f"no resource of stack {stack.name} has the reference id {reference_id}",
                resource=ctx.resource_name,
            )
        self.runtime.signal(stack.id, name, data)
        return name

    # -- what groups batch by (NestedPolicies) ---------------------------------------------

    def update_policy(self, ctx: ResourceContext) -> Mapping[str, Any]:
        """See :meth:`NestedPolicies.update_policy`."""
        stack = self.store.get_stack(ctx.stack.id)
        raw = self.store.get_raw_template(stack.raw_template_id)
        if not _writes_update_policy(raw.template, ctx.resource_name):
            return {}  # most resources: no need to build the stack's definition
        definition = stack_definition(self.store, stack, raw, self.limits.function_budget())
        if ctx.resource_name not in definition.resources:
            return {}
        resolution = StoredResolution(self.store, stack.id)
        return definition.resolve_update_policy(ctx.resource_name, resolution)

    def stack_timeout(self, ctx: ResourceContext) -> float:
        """See :meth:`NestedPolicies.stack_timeout`."""
        minutes = self.store.get_stack(ctx.stack.id).timeout_mins or self.default_timeout_mins
        return float(minutes) * 60

    def resource_definitions(
        self, ctx: ResourceContext, stack_id: str
    ) -> Mapping[str, Mapping[str, Any]]:
        """See :meth:`NestedPolicies.resource_definitions`."""
        child = self.store.get_stack(stack_id, show_deleted=True)
        resources = self.store.get_raw_template(child.raw_template_id).template.get("resources")
        return dict(resources) if isinstance(resources, Mapping) else {}

    # -- helpers ------------------------------------------------------------------------------

    def _prepare(
        self,
        ctx: ResourceContext,
        parent: Stack,
        nested: NestedTemplate,
        identity: Identity,
    ) -> Prepared:
        """Check the child as a top-level stack, in the parent's environment."""
        raw = self.store.get_raw_template(parent.raw_template_id)
        environment = Environment.from_dict(raw.environment)
        child_env = environment.child(
            ctx.resource_name, nested.parameters, self._resolved(ctx, environment, raw.files)
        )
        template = Template.from_document(copy.deepcopy(dict(nested.template)), nested.files)
        return prepare(template, child_env, identity, self.registry, self.limits)

    def _resolved(
        self, ctx: ResourceContext, environment: Environment, files: Mapping[str, str]
    ) -> ResolvedType | None:
        """How the parent's environment resolved the resource's type (the registry entry a
        template resource's child must not see, so it may use the type it implements)."""
        try:
            return environment.resolve_type(
                ctx.resource_name, ctx.resource_type, files, self.registry.__contains__
            )
        except ThermikError:
            return None

    def _store_template(self, prepared: Prepared) -> int:
        return self.store.store_raw_template(
            prepared.template, prepared.environment, prepared.files, prepared.hidden_parameters
        )


def _writes_update_policy(template: Mapping[str, Any], name: str) -> bool:
    """Whether resource ``name`` of a HOT or CFN document has an update policy."""
    for section, key in (("resources", "update_policy"), ("Resources", "UpdatePolicy")):
        resources = template.get(section)
        resource = resources.get(name) if isinstance(resources, Mapping) else None
        if isinstance(resource, Mapping) and resource.get(key) is not None:
            return True
    return False


def _child_row(
    ctx: ResourceContext,
    parent: Stack,
    nested: NestedTemplate,
    template_id: int,
    name: str,
    stack_id: str,
) -> NewStack:
    """The stack row of a new child (the runtime stores it with its create started)."""
    return NewStack(
        name=name,
        tenant=parent.tenant,
        raw_template_id=template_id,
        username=parent.username,
        id=stack_id,
        owner_id=parent.id,
        parent_resource_name=ctx.resource_name,
        user_creds_id=parent.user_creds_id,
        stack_user_project_id=parent.stack_user_project_id,
        timeout_mins=nested.timeout_mins or parent.timeout_mins,
        disable_rollback=True,
    )
