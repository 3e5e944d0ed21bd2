"""What nested-stack plugins need from the engine, as a typed Protocol.

Template resources, ``OS::Heat::Stack``, ``OS::Heat::ResourceGroup`` and
``OS::Heat::ResourceChain`` are resources whose physical thing is a child stack of the same
engine. The plugins decide *what* the child is (its template, parameters, what its attributes
mean); the engine side implements :class:`NestedStackServices`: it checks and stores the child
stack (owner, parent resource name, root, depth), starts the child's traversal as a child stack
actor and wakes the parent resource when the child's traversal ends, so a parent never polls a
running child in a loop.

A plugin finds the services on its context with :func:`nested_services`; a context without them
(a test, an engine built without them) makes the plugin fail with a clear error.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from thermik.errors import PluginError
from thermik.resources.context import ResourceContext

IN_PROGRESS, COMPLETE, FAILED = "IN_PROGRESS", "COMPLETE", "FAILED"

#: Resource data key under which the engine records a child's id before storing the child, so
#: a child whose creation was interrupted (engine crash) is still found and deleted.
CHILD_KEY = "nested_stack_id"
#: The parent is woken when its child's traversal ends; this poll is only a safety net (a
#: child driven by another engine after a crash).
DEFAULT_FALLBACK_POLL = 10.0


@dataclasses.dataclass(frozen=True, slots=True)
class NestedTemplate:
    """What a child stack is made of.

    Attributes:
        template: the parsed template document (HOT or CFN).
        files: the files map the template's ``get_file`` and template-resource types read
            (the parent's files are passed on by the plugin, as Heat does).
        parameters: the child's parameter values (a template resource's properties).
        timeout_mins: the child's timeout; ``None`` inherits the parent stack's.
    """

    template: Mapping[str, Any]
    files: Mapping[str, str] = dataclasses.field(default_factory=dict)
    parameters: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    timeout_mins: int | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class NestedState:
    """A child stack's latest operation: Heat's ``<action>`` and ``<status>`` strings."""

    stack_id: str
    action: str
    status: str
    reason: str
    #: The child's name (``""`` when the implementation does not say).
    stack_name: str = ""

    @property
    def settled(self) -> bool:
        """Whether the operation is over (COMPLETE or FAILED)."""
        return self.status != IN_PROGRESS


@runtime_checkable
class NestedStackServices(Protocol):
    """The engine's child stacks, as nested-stack plugins use them.

    The parent is always ``ctx``'s resource: the child is owned by ``ctx.stack`` and named
    after ``ctx.resource_name``. Every method may block on the database: plugins call them
    from their actions, which the engine runs on an executor. Every method that starts an
    operation returns once it is durably started, never waiting for the end; the parent
    resource is woken (its ``check_*_complete`` runs again) when the child's traversal ends.
    """

    def create(self, ctx: ResourceContext, nested: NestedTemplate) -> str:
        """Check and store a child stack and start creating it; its id.

        The child inherits the parent stack's environment (resource registry,
        ``parameter_defaults``), tenant and, unless ``nested.timeout_mins`` says, timeout;
        its rollback is disabled (the parent decides).

        Raises:
            InvalidInput: the child template, its parameters or a resource is invalid
                (the message names the resource path inside the child).
            PluginError: the stack tree would be deeper than ``max_nested_stack_depth``.
        """
        ...

    def update(self, ctx: ResourceContext, stack_id: str, nested: NestedTemplate) -> None:
        """Check the new definition and start updating the child to it.

        Raises:
            InvalidInput: as for :meth:`create`.
            NotFound: no such child.
        """
        ...

    def delete(self, ctx: ResourceContext, stack_id: str) -> None:
        """Start deleting the child (a child that is gone already is not an error)."""
        ...

    def act(self, ctx: ResourceContext, stack_id: str, action: str) -> None:
        """Start ``SUSPEND``, ``RESUME``, ``CHECK`` or ``SNAPSHOT`` on the child."""
        ...

    def cancel(self, ctx: ResourceContext, stack_id: str) -> None:
        """Stop the child's running operation without rollback (nothing running: no-op)."""
        ...

    def state(self, ctx: ResourceContext, stack_id: str) -> NestedState:
        """The child's latest operation. A deleted child is ``DELETE_COMPLETE``.

        Raises:
            NotFound: no child with that id (never created, or purged).
        """
        ...

    def outputs(self, ctx: ResourceContext, stack_id: str) -> Mapping[str, Any]:
        """The child's output values, resolved with Heat's semantics (an output that cannot
        be resolved is absent)."""
        ...

    def output_error(self, ctx: ResourceContext, stack_id: str, name: str) -> str | None:
        """Why the child's output ``name`` cannot be resolved (``None`` if it can, or if the
        child has no such output)."""
        ...

    def resource_names(self, ctx: ResourceContext, stack_id: str) -> Sequence[str]:
        """The child's current resources, in template order."""
        ...

    def resource_reference(self, ctx: ResourceContext, stack_id: str, name: str) -> Any:
        """What ``get_resource: name`` gives inside the child (``None`` if not created)."""
        ...

    def resource_attribute(
        self, ctx: ResourceContext, stack_id: str, name: str, path: Sequence[str | int]
    ) -> Any:
        """What ``get_attr: [name, *path]`` gives inside the child.

        Raises:
            InvalidInput: no such resource or attribute in the child.
        """
        ...


@runtime_checkable
class NestedBatchReads(Protocol):
    """Optional reads of many child resources at once, which services may also offer.

    Group types read every member's reference or attribute; one read of the child instead of
    one per member keeps that linear in the group's size.
    """

    def resource_references(self, ctx: ResourceContext, stack_id: str) -> Mapping[str, Any]:
        """What ``get_resource`` gives for each of the child's current resources."""
        ...

    def attribute_of_resources(
        self,
        ctx: ResourceContext,
        stack_id: str,
        names: Sequence[str],
        path: Sequence[str | int],
    ) -> Mapping[str, Any]:
        """What ``get_attr: [name, *path]`` gives for each of ``names`` (``None`` for a
        resource the child does not have)."""
        ...


@runtime_checkable
class NestedPolicies(Protocol):
    """Optional reads a group needs to run its members in batches, which services may offer
    (without them a group creates and updates every member at once).
    """

    def update_policy(self, ctx: ResourceContext) -> Mapping[str, Any]:
        """The ``update_policy`` of ``ctx``'s resource as the stack's current template writes
        it, resolved (empty when it has none)."""
        ...

    def stack_timeout(self, ctx: ResourceContext) -> float:
        """Seconds ``ctx``'s stack has for an operation (its timeout, else the default)."""
        ...

    def resource_definitions(
        self, ctx: ResourceContext, stack_id: str
    ) -> Mapping[str, Mapping[str, Any]]:
        """The child's resource definitions as its current template writes them, in template
        order."""
        ...


@runtime_checkable
class NestedTimes(Protocol):
    """Optional: when a child's operation ended, which services may offer (a scaling group's
    cooldown counts from the end of its latest resize)."""

    def ended_at(self, ctx: ResourceContext, stack_id: str) -> float | None:
        """When the child's latest operation ended, in epoch seconds (``None``: it runs, or
        not known)."""
        ...


@runtime_checkable
class PeerSignals(Protocol):
    """Optional: signalling another resource of the same stack, which services may offer (a
    scaling policy resizes its group by signalling it, as Heat's policy adjusts its group)."""

    def signal_peer(
        self, ctx: ResourceContext, reference_id: str, data: Mapping[str, Any] | None
    ) -> str:
        """Signal the resource of ``ctx.stack`` whose reference id (else name) is
        ``reference_id`` and wait until it handled the signal; its name.

        Raises:
            NotFound: the stack has no such resource.
            InvalidSignal: it takes no signals now, or refused ``data``.
        """
        ...


class NestedContext(ResourceContext, Protocol):
    """A resource context that offers the nested-stack services."""

    @property
    def nested(self) -> NestedStackServices:
        """The engine's nested-stack services."""
        ...


def child_stack_id(ctx: ResourceContext) -> str | None:
    """The id of the child stack of ``ctx``'s resource: its physical id, else the id the
    engine recorded before storing the child (a creation that was interrupted)."""
    return ctx.physical_id or ctx.data.get(CHILD_KEY)


def fallback_poll(services: NestedStackServices) -> float:
    """Seconds between the safety-net polls of a running child (the services'
    ``fallback_poll`` attribute when they have one)."""
    seconds = getattr(services, "fallback_poll", DEFAULT_FALLBACK_POLL)
    return float(seconds) if isinstance(seconds, int | float) else DEFAULT_FALLBACK_POLL


def nested_services(ctx: ResourceContext) -> NestedStackServices:
    """The nested-stack services on ``ctx``, or a clear error naming the resource."""
    services = getattr(ctx, "nested", None)
    if not isinstance(services, NestedStackServices):
        raise PluginError(
            f"{ctx.resource_type}: nested stacks are not available in this engine",
            resource=ctx.resource_name,
        )
    return services
