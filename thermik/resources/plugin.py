"""The resource plugin contract: what a resource type implements and how the engine drives it.

A plugin is a subclass of :class:`ResourcePlugin`. It declares its schemas as class attributes
and implements real methods; the engine calls them, never names built from strings.

How an action runs (create shown; update, delete, suspend, resume, check, snapshot and restore
have the same shape):

1. ``create(ctx, props)`` starts the work and returns quickly, with a :class:`Progress` to poll
   (or ``None`` when it finished at once).
2. The engine calls ``check_create_complete(ctx, props, progress)`` until it returns True. It
   returns False or :class:`PollAfter` while waiting, and must never block on slow I/O: the
   actor shell schedules the next poll (with backoff, or after the plugin's hint). A
   :class:`PollAfter` may carry a new progress, which later polls receive instead.
3. Any :class:`~thermik.errors.ThermikError` raised by a step fails the action with that message
   as the status reason (plugins raise :class:`~thermik.errors.PluginError` for their own
   failures); any other exception is a plugin bug and fails the action the same way.
4. An update starts with :func:`plan_update` (immutable properties, then
   ``needs_replacement``); only when no replacement is needed does the engine call ``update``,
   which may still answer :class:`NeedsReplacement` before touching anything.
5. When the stack operation is cancelled while an action runs, ``cancel(ctx, props, operation)``
   is called once (Heat's ``handle_*_cancel``), then the action counts as FAILED.

Plugins keep no state between calls: everything durable goes to ``ctx.data``, the physical id or
the :class:`Progress` value (which is JSON-serialisable, so another engine can resume polling).
"""

from __future__ import annotations

import abc
import dataclasses
import enum
import types
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from thermik.errors import PropertyError
from thermik.resources.constraints import CustomValidator
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.properties import Unresolved, never_unresolved, validate_properties
from thermik.resources.schema import (
    BASE_ATTRIBUTES,
    SUPPORTED,
    AttributesSchema,
    PropertiesSchema,
    SupportStatus,
    immutable_names,
    update_allowed_names,
)
from thermik.resources.stack_view import StackView

Props = Mapping[str, Any]


class Operation(enum.StrEnum):
    """A resource action, named as Heat names it in events and states."""

    CREATE = "CREATE"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    SUSPEND = "SUSPEND"
    RESUME = "RESUME"
    CHECK = "CHECK"
    SNAPSHOT = "SNAPSHOT"
    RESTORE = "RESTORE"


@dataclasses.dataclass(frozen=True, slots=True)
class Progress:
    """What an action hands to its ``check_*_complete``: plugin-defined, JSON-serialisable."""

    state: Mapping[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True, slots=True)
class PollAfter:
    """Not complete yet; poll again after about ``seconds`` (a hint, not a promise).

    ``progress``, when given, replaces the action's :class:`Progress` from then on: the next
    poll receives it, and a clean stop records it (an action that moves through stages, such
    as a group's batches, says which stage it reached).
    """

    seconds: float
    progress: Progress | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class NeedsReplacement:
    """The change cannot be made in place: create a replacement, then delete this one."""

    reason: str


#: What ``check_*_complete`` returns: True when done, False or a hint while waiting.
CheckResult = bool | PollAfter


def changed_properties(old: Props, new: Props) -> frozenset[str]:
    """Names whose values differ between two validated property sets."""
    return frozenset(k for k in set(old) | set(new) if old.get(k) != new.get(k))


def select_path(value: Any, path: Sequence[str | int]) -> Any:
    """Follow a ``get_attr`` path into an attribute value; ``None`` when it leads nowhere."""
    for key in path:
        if isinstance(value, Mapping) and isinstance(key, str | int):
            value = value.get(key)
        elif isinstance(value, list) and isinstance(key, int) and -len(value) <= key < len(value):
            value = value[key]
        else:
            return None
    return value


class ResourcePlugin(abc.ABC):
    """Base class of every resource type.

    Every method has a working default except :meth:`create`. Defaults: actions other than
    create complete at once and do nothing; changed properties that are not ``update_allowed``
    ask for replacement; attributes resolve to ``None``; the reference id is the physical id,
    else the resource name.
    """

    #: property name -> schema; see :mod:`thermik.resources.schema`.
    properties_schema: ClassVar[PropertiesSchema] = types.MappingProxyType({})
    #: attribute name -> schema (``show`` is added for every type).
    attributes_schema: ClassVar[AttributesSchema] = types.MappingProxyType({})
    #: update policy name -> schema (``rolling_update``, ``batch_create``) for group types.
    update_policy_schema: ClassVar[PropertiesSchema] = types.MappingProxyType({})
    support_status: ClassVar[SupportStatus] = SUPPORTED
    #: Whether the type accepts signals (``handle_signal``).
    takes_signals: ClassVar[bool] = False
    #: Whether a handled signal may change what other resources read (their metadata).
    signal_refreshes_metadata: ClassVar[bool] = True
    #: Whether a handled signal changes the resource's own attributes (a scaling group's
    #: members): the engine then resolves and stores them again once the signal is handled.
    signal_refreshes_attributes: ClassVar[bool] = False
    #: Whether attribute names beyond the schema exist (group members, deployment outputs).
    dynamic_attributes: ClassVar[bool] = False
    #: Attributes costly to resolve (more cloud requests): resolved when an action completes
    #: only if a successor or an output reads them, not stored with every other otherwise.
    lazy_attributes: ClassVar[frozenset[str]] = frozenset()
    #: Whether the type honours ``deletion_policy: Snapshot`` (its delete keeps a copy first,
    #: Heat's ``handle_snapshot_delete``, seeing the policy through the context); a template
    #: giving the policy to any other type is refused, as Heat refuses it.
    snapshots_on_delete: ClassVar[bool] = False
    #: Whether a FAILED resource is replaced, rather than updated, by the next update.
    replace_if_failed: ClassVar[bool] = True
    #: Whether every update traversal updates the resource, even with unchanged properties
    #: (nested stacks, as Heat's ``StackResource``: the child decides what changed).
    always_update: ClassVar[bool] = False
    #: Whether the type's create, update and delete touch nothing but what the engine stores
    #: for it (its resource data and physical id): no cloud, no other row. The engine may then
    #: run such an action before locking the row and record the lock, the data and the outcome
    #: in one write; an engine that dies in between leaves no trace of the action, which the
    #: next engine runs again.
    store_only: ClassVar[bool] = False

    @classmethod
    def runs_inline(cls, props: Props) -> bool:
        """Whether an action of this store-only type with these properties returns at once,
        never waiting (no sleep, no I/O but the engine's store): the engine then runs it on
        the resource's actor thread rather than hand it to the executor and back."""
        return cls.store_only

    @classmethod
    def restarts_after_crash(cls, operation: Operation) -> bool:
        """Whether ``operation``, interrupted by an engine that died, may simply be run again
        by the next engine, on the same version, rather than fail (Heat's "Worker went down").

        Only for actions that cannot make something twice: a create that finds what an
        interrupted one made (cloud types' creation tags), a delete for which gone is done.
        """
        return False

    @classmethod
    def implied_requirements(cls, name: str, stack: StackView) -> Iterable[str]:
        """Resources of ``stack`` that resource ``name`` of this type needs created first
        (and deleted after it) although its template does not say so: Heat's implicit
        dependencies (a port waits for the subnets of its network). None by default."""
        return ()

    @classmethod
    def checks(cls) -> bool:
        """Whether the plugin checks its physical resource (overrides :meth:`check`). As in
        Heat, a stack CHECK does not check one that does not: it records that it cannot."""
        return cls.check is not ResourcePlugin.check

    # -- validation -------------------------------------------------------------------------

    @classmethod
    def check_properties(
        cls,
        values: Props | None,
        *,
        unresolved: Unresolved = never_unresolved,
        custom_constraints: Mapping[str, CustomValidator] | None = None,
        path: Sequence[str | int] = (),
    ) -> dict[str, Any]:
        """Validate property values against this type's schema; see ``validate_properties``.

        Types whose schema depends on the values (``OS::Heat::Value``) or that accept anything
        (``OS::Heat::None``) override this.
        """
        return validate_properties(
            cls.properties_schema,
            values,
            unresolved=unresolved,
            custom_constraints=custom_constraints,
            path=path,
        )

    def validate(self, props: Props, vctx: ValidationContext) -> None:  # noqa: B027 - optional hook
        """Checks across properties beyond the schema.

        Raises:
            PropertyError: with a path relative to the resource (``("properties", "length")``,
                or empty for the resource as a whole); the caller prefixes
                ``("resources", name)``.
        """

    @classmethod
    def has_attribute(cls, name: str) -> bool:
        """Whether ``get_attr`` may name this attribute."""
        return cls.dynamic_attributes or name in cls.attributes_schema or name in BASE_ATTRIBUTES

    # -- create -----------------------------------------------------------------------------

    @abc.abstractmethod
    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Start creating the resource; set the physical id through ``ctx`` as soon as known."""

    def check_create_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether the creation finished."""
        return True

    # -- update -----------------------------------------------------------------------------

    def needs_replacement(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> NeedsReplacement | None:
        """Decide, before updating, whether the change needs a replacement.

        The engine asks on every update traversal that reaches the resource, even when nothing
        changed (a type may insist on replacement every time). The default asks for replacement
        when a changed property is not ``update_allowed``.
        """
        fixed = sorted(changed - update_allowed_names(self.properties_schema))
        if fixed:
            return NeedsReplacement("update of " + ", ".join(fixed) + " needs replacement")
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | NeedsReplacement | None:
        """Start an in-place update; may still discover that it needs a replacement.

        Returning :class:`NeedsReplacement` must leave the existing resource untouched.
        """
        return None

    def check_update_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether the update finished."""
        return True

    # -- delete -----------------------------------------------------------------------------

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Start deleting; a resource already gone counts as deleted, not as a failure."""
        return None

    def check_delete_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether the deletion finished."""
        return True

    # -- suspend, resume, check, snapshot, restore --------------------------------------------

    def suspend(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Start suspending the resource."""
        return None

    def check_suspend_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether suspending finished."""
        return True

    def resume(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Start resuming the resource."""
        return None

    def check_resume_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether resuming finished."""
        return True

    def check(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Start checking that the resource still exists and is healthy; raise if it is not."""
        return None

    def check_check_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether the check finished."""
        return True

    def snapshot(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Start a snapshot; what must be kept goes to ``ctx.data``, which the engine saves."""
        return None

    def check_snapshot_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether the snapshot finished."""
        return True

    def restore(
        self, ctx: ResourceContext, props: Props, snapshot: Mapping[str, str]
    ) -> Progress | None:
        """Start restoring from the data a snapshot saved.

        Called in a restore, once the version converged to the snapshot's template (it may be
        a replacement made by the restore), with ``snapshot`` the resource data the snapshot
        kept for this resource (what :meth:`snapshot` and the actions before it stored in
        ``ctx.data``). Only plugins that override it are called.
        """
        return None

    def check_restore_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether restoring finished."""
        return True

    def cancel(  # noqa: B027 - optional hook, nothing to abandon by default
        self, ctx: ResourceContext, props: Props, operation: Operation
    ) -> None:
        """Abandon the running ``operation``; called once, must not block."""

    # -- signals, references, attributes ------------------------------------------------------

    def handle_signal(
        self, ctx: ResourceContext, props: Props, data: Mapping[str, Any] | None
    ) -> str | None:
        """Handle a signal (only called when ``takes_signals``).

        Returns:
            A reason for the signal event, or ``None`` for a generic one.

        Raises:
            InvalidSignal: the data is malformed; nothing was stored.
        """
        return None

    def reference_id(self, ctx: ResourceContext, props: Props) -> str | None:
        """What ``get_resource`` returns: the physical id, else the resource name."""
        return ctx.physical_id if ctx.physical_id is not None else ctx.resource_name

    def attribute(
        self, ctx: ResourceContext, props: Props, name: str, path: Sequence[str | int] = ()
    ) -> Any:
        """What ``get_attr: [resource, name, *path]`` returns.

        The default resolves the attribute with :meth:`resolve_attribute` and follows ``path``
        into it; types with path-aware attributes (groups) override this.
        """
        return select_path(self.resolve_attribute(ctx, props, name), path)

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        """The whole value of attribute ``name``; ``None`` when unknown or not available."""
        return None


@dataclasses.dataclass(frozen=True, slots=True)
class UpdatePlan:
    """How the engine should bring a resource to new properties."""

    changed: frozenset[str]
    replacement: NeedsReplacement | None


def plan_update(
    plugin: ResourcePlugin, ctx: ResourceContext, new_props: Props, old_props: Props
) -> UpdatePlan:
    """Compare property sets, refuse changes to immutable properties, decide on replacement.

    Raises:
        PropertyError: an ``immutable`` property changed (Heat: "not supported").
    """
    changed = changed_properties(old_props, new_props)
    frozen = sorted(changed & immutable_names(plugin.properties_schema))
    if frozen:
        raise PropertyError(
            f"Update to properties {', '.join(frozen)} of {ctx.resource_name} "
            f"({ctx.resource_type}) is not supported",
            path=("resources", ctx.resource_name, "properties"),
            resource=ctx.resource_name,
        )
    return UpdatePlan(changed, plugin.needs_replacement(ctx, new_props, old_props, changed))
