"""The lifecycle every resource whose physical thing is a child stack shares.

A :class:`NestedStackResource` says *what* its child is (:meth:`~NestedStackResource.nested`:
template, files, parameters); this base drives the child through ``ctx.nested``
(:class:`~thermik.resources.nested_services.NestedStackServices`): each action starts the
child's operation and its ``check_*_complete`` reads the child's state. The engine wakes the
resource when the child's traversal ends, so the poll returned here is only a slow safety net.

As Heat's ``StackResource``: every update traversal updates the child (the child's own
resources decide what changed), a failed child is updated rather than replaced, and a failed
child operation fails the resource with the child's reason, re-rooted under the resource as
Heat writes it (:func:`child_failure`).
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Any, ClassVar

from thermik.errors import NotFound, PluginError
from thermik.resources.context import ResourceContext
from thermik.resources.nested_services import (
    COMPLETE,
    FAILED,
    NestedStackServices,
    NestedState,
    NestedTemplate,
    child_stack_id,
    fallback_poll,
    nested_services,
)
from thermik.resources.plugin import (
    CheckResult,
    NeedsReplacement,
    Operation,
    PollAfter,
    Progress,
    Props,
    ResourcePlugin,
)

#: The key of a :class:`Progress` that names the child operation waited for.
_ACTION = "action"


class NestedStackResource(ResourcePlugin):
    """A resource implemented by a child stack of the same engine."""

    #: The parent stack's files map (bound by the engine for the definition being converged).
    parent_files: ClassVar[Mapping[str, str]] = types.MappingProxyType({})
    always_update: ClassVar[bool] = True
    replace_if_failed: ClassVar[bool] = False

    @classmethod
    def bind_files(cls, files: Mapping[str, str]) -> type[NestedStackResource]:
        """This type, knowing the parent stack's files (passed on to the child)."""
        if not files:
            return cls
        return type(cls.__name__, (cls,), {"parent_files": files, "__module__": cls.__module__})

    def nested(self, ctx: ResourceContext, props: Props) -> NestedTemplate:
        """What the child stack is made of, for these properties."""
        raise NotImplementedError

    # -- actions ------------------------------------------------------------------------------

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Store the child and start creating it."""
        self.check_local(ctx, props)
        stack_id = nested_services(ctx).create(ctx, self.nested(ctx, props))
        ctx.set_physical_id(stack_id)
        return Progress({_ACTION: "CREATE"})

    def check_create_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether the child's create ended (its failure is the resource's)."""
        return self.settled(ctx, "CREATE")

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | NeedsReplacement | None:
        """Update the child to the new definition (a resource without a child: create it)."""
        self.check_local(ctx, new_props)
        services = nested_services(ctx)
        stack_id = child_stack_id(ctx)
        if stack_id is None or _gone(services, ctx, stack_id):
            stack_id = services.create(ctx, self.nested(ctx, new_props))
            ctx.set_physical_id(stack_id)
            return Progress({_ACTION: "CREATE"})
        if not changed and _creating(services, ctx, stack_id):
            # The resource's create was interrupted (its engine died) while the child's, for
            # the same properties, still runs: it goes on (recovered as any stack's), and the
            # resource waits for it rather than superseding it with an update.
            if ctx.physical_id != stack_id:
                ctx.set_physical_id(stack_id)
            return self.resume_create(ctx, new_props)
        return self.update_child(ctx, stack_id, new_props)

    def resume_create(self, ctx: ResourceContext, props: Props) -> Progress:
        """Wait for the child's create, which started before this action."""
        return Progress({_ACTION: "CREATE"})

    def update_child(self, ctx: ResourceContext, stack_id: str, props: Props) -> Progress:
        """Start updating the existing child ``stack_id`` to what ``props`` define."""
        self.start_update(ctx, stack_id, self.nested(ctx, props))
        return Progress({_ACTION: "UPDATE"})

    @staticmethod
    def start_update(ctx: ResourceContext, stack_id: str, nested: NestedTemplate) -> None:
        """Start updating the existing child ``stack_id`` to ``nested``."""
        nested_services(ctx).update(ctx, stack_id, nested)
        if ctx.physical_id != stack_id:
            # Known only from the resource data: a create was interrupted before it ended.
            ctx.set_physical_id(stack_id)

    def check_update_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether the child's update (or create) ended."""
        action = progress.state.get(_ACTION, "UPDATE") if progress is not None else "UPDATE"
        return self.settled(ctx, str(action))

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Start deleting the child (none, or gone already: nothing to do)."""
        stack_id = child_stack_id(ctx)
        if stack_id is None:
            return None
        nested_services(ctx).delete(ctx, stack_id)
        return Progress({_ACTION: "DELETE"})

    def check_delete_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether the child is gone."""
        if progress is None:
            return True
        return self.settled(ctx, "DELETE")

    def suspend(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Suspend the child."""
        return self._act(ctx, "SUSPEND")

    def check_suspend_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether the child is suspended."""
        return progress is None or self.settled(ctx, "SUSPEND")

    def resume(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Resume the child."""
        return self._act(ctx, "RESUME")

    def check_resume_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether the child is resumed."""
        return progress is None or self.settled(ctx, "RESUME")

    def check(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Check the child's resources."""
        return self._act(ctx, "CHECK")

    def check_check_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether the child's check ended."""
        return progress is None or self.settled(ctx, "CHECK")

    def snapshot(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Snapshot the child."""
        return self._act(ctx, "SNAPSHOT")

    def check_snapshot_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether the child's snapshot ended."""
        return progress is None or self.settled(ctx, "SNAPSHOT")

    def cancel(self, ctx: ResourceContext, props: Props, operation: Operation) -> None:
        """Stop the child's running operation (without rollback: the parent decides)."""
        stack_id = child_stack_id(ctx)
        if stack_id is not None:
            nested_services(ctx).cancel(ctx, stack_id)

    # -- references and attributes ----------------------------------------------------------

    def child_state(self, ctx: ResourceContext) -> NestedState | None:
        """The child's latest operation (``None``: no child)."""
        stack_id = child_stack_id(ctx)
        if stack_id is None:
            return None
        try:
            return nested_services(ctx).state(ctx, stack_id)
        except NotFound:
            return None

    def child_outputs(self, ctx: ResourceContext) -> Mapping[str, Any]:
        """The child's output values (none without a child)."""
        stack_id = child_stack_id(ctx)
        if stack_id is None:
            return {}
        try:
            return nested_services(ctx).outputs(ctx, stack_id)
        except NotFound:
            return {}

    def check_local(self, ctx: ResourceContext, props: Props) -> None:
        """Refuse a child this engine cannot run (a remote one); the default accepts all."""

    # -- helpers ------------------------------------------------------------------------------

    def _act(self, ctx: ResourceContext, action: str) -> Progress | None:
        stack_id = child_stack_id(ctx)
        if stack_id is None:
            return None
        nested_services(ctx).act(ctx, stack_id, action)
        return Progress({_ACTION: action})

    def settled(self, ctx: ResourceContext, action: str) -> CheckResult:
        """True when the child's ``action`` completed, a poll hint while it runs.

        Raises:
            PluginError: the child failed, is gone, or ended another action.
        """
        services = nested_services(ctx)
        stack_id = child_stack_id(ctx)
        if stack_id is None:
            raise PluginError("the nested stack is missing", resource=ctx.resource_name)
        try:
            state = services.state(ctx, stack_id)
        except NotFound:
            if action == "DELETE":
                return True
            raise PluginError(
                f"the nested stack {stack_id} is gone", resource=ctx.resource_name
            ) from None
        if not state.settled:
            return PollAfter(fallback_poll(services))
        if state.status == FAILED:
            raise child_failure(state.action, state.reason or f"{state.action} failed")
        if state.action != action or state.status != COMPLETE:
            raise PluginError(
                f"the nested stack is {state.action}_{state.status}, not {action}_COMPLETE",
                resource=ctx.resource_name,
            )
        return True


def _creating(services: NestedStackServices, ctx: ResourceContext, stack_id: str) -> bool:
    state = services.state(ctx, stack_id)
    return state.action == "CREATE" and not state.settled


def _gone(services: NestedStackServices, ctx: ResourceContext, stack_id: str) -> bool:
    try:
        state = services.state(ctx, stack_id)
    except NotFound:
        return True
    return state.action == "DELETE" and state.status == COMPLETE


def child_failure(action: str, reason: str) -> PluginError:
    """The failure of a resource whose child stack failed ``action`` with ``reason``.

    As Heat's ``StackResource``: a child reason ``Resource CREATE failed: <type>: <path>:
    <message>`` becomes ``<type>`` with ``<path>`` (under the resource: the node puts
    ``resources.<name>`` in front) and ``<message>``; any other reason (``Timed out``,
    ``Stack UPDATE cancelled``) is the message, with no type.
    """
    if f"Resource {action} failed: " in reason:
        parts = [part.strip() for part in reason.split(":")]
        if len(parts) >= 4:
            return PluginError(": ".join(parts[3:]), path=parts[2].split("."), kind=parts[1])
    return PluginError(reason, kind="")
