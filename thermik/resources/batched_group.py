"""A group whose members are created and updated in batches, as its update policy says.

Heat's ``OS::Heat::ResourceGroup`` honours two entries of its ``update_policy``:

- ``batch_create`` (``max_batch_size``, ``pause_time``): a create makes the child with the
  first batch of members, then grows it batch by batch, in index order;
- ``rolling_update`` (``max_batch_size``, ``min_in_service``, ``pause_time``): an update that
  changes members' definitions gives at most ``max_batch_size`` members their new definition
  per batch, keeping at least ``min_in_service`` members in service (with extra members for a
  while when needed, see :mod:`thermik.resources.group_batches`).

Each batch is an update of the child stack; ``pause_time`` seconds pass between batches. The
pause is a poll hint of ``check_*_complete``, never a sleep: the :class:`Progress` returned with
it records when the pause ends, and which child action is awaited, so a clean stop resumes the
batches where they were, and a cancel during a pause ends the action at once. The next batch is
always computed from the child's members as they are, so an update run again after a failure
(or after an engine died) carries on in batches from where the child stands.

Deliberate differences from Heat: Heat starts a rolling update when ``resource_def`` changed;
here when a member the group keeps has another definition than the group now gives it (which
also covers an update run again after a failed one, where nothing changed in the template), so
an update that changes no member's definition is one child update, without empty batches or
pauses. A batch create makes the child with its first batch (Heat creates an empty child and
updates it).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any, Final

from thermik.errors import PluginError
from thermik.resources.context import ResourceContext
from thermik.resources.group_batches import (
    BatchPolicy,
    Define,
    Members,
    count_batches,
    next_members,
    outdated,
)
from thermik.resources.group_templates import child_template
from thermik.resources.nested_group import NestedGroup
from thermik.resources.nested_services import (
    NestedPolicies,
    NestedTemplate,
    child_stack_id,
    fallback_poll,
    nested_services,
)
from thermik.resources.plugin import CheckResult, PollAfter, Progress, Props
from thermik.resources.properties import validate_properties

BATCH_CREATE: Final = "batch_create"
ROLLING_UPDATE: Final = "rolling_update"
#: Progress keys: the child action awaited, the batch policy, when the running pause ends.
_ACTION, _BATCH, _PAUSE_UNTIL = "action", "batch", "pause_until"
TIMEOUT_MESSAGE: Final = "The current update policy will result in stack update timeout."


@dataclasses.dataclass(frozen=True, slots=True)
class Target:
    """The members a group's properties define: ``size`` members, never one of ``removed``,
    each defined by ``define``."""

    size: int
    removed: frozenset[str]
    define: Define


def _policies(ctx: ResourceContext) -> NestedPolicies | None:
    services = nested_services(ctx)
    return services if isinstance(services, NestedPolicies) else None


class BatchedGroup(NestedGroup):
    """A :class:`NestedGroup` that honours ``batch_create`` and ``rolling_update``."""

    def target(self, ctx: ResourceContext, props: Props) -> Target:
        """The members ``props`` define (reads what was recorded, records nothing)."""
        raise NotImplementedError

    def batch_policy(self, ctx: ResourceContext, props: Props, key: str) -> BatchPolicy | None:
        """The resource's ``update_policy`` entry ``key``, validated (``None``: not set, or an
        engine that does not say); a type whose batches its properties define (``props``)
        overrides this.

        Raises:
            PropertyError: the update policy fails its schema (the path names the value).
        """
        services = _policies(ctx)
        if services is None:
            return None
        where = ("resources", ctx.resource_name, "update_policy")
        policy = validate_properties(
            self.update_policy_schema, services.update_policy(ctx), path=where
        )
        entry = policy.get(key)
        return None if entry is None else BatchPolicy.from_entry(entry)

    # -- create -----------------------------------------------------------------------------

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Create the child; with ``batch_create``, with its first batch of members."""
        policy = self.batch_policy(ctx, props, BATCH_CREATE)
        if policy is None:
            return super().create(ctx, props)
        self.check_local(ctx, props)
        full = self.nested(ctx, props)  # records what the group decides (removed names)
        target = self.target(ctx, props)
        first = self._first_batch(ctx, {}, target, policy)
        if first is None:
            return super().create(ctx, props)
        stack_id = nested_services(ctx).create(ctx, dataclasses.replace(full, template=first))
        ctx.set_physical_id(stack_id)
        return Progress({_ACTION: "CREATE", _BATCH: policy.as_state()})

    def resume_create(self, ctx: ResourceContext, props: Props) -> Progress:
        """Wait for the child's create (with ``batch_create``, then create the other
        batches)."""
        policy = self.batch_policy(ctx, props, BATCH_CREATE)
        if policy is None:
            return super().resume_create(ctx, props)
        return Progress({_ACTION: "CREATE", _BATCH: policy.as_state()})

    def check_create_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether the child's create (and, in batches, every batch after it) ended."""
        if progress is not None and _BATCH in progress.state:
            return self._check_batches(ctx, props, progress.state)
        return super().check_create_complete(ctx, props, progress)

    # -- update -----------------------------------------------------------------------------

    def update_child(self, ctx: ResourceContext, stack_id: str, props: Props) -> Progress:
        """Update the child; with ``rolling_update`` and members to change, in batches."""
        policy = self.batch_policy(ctx, props, ROLLING_UPDATE)
        if policy is None:
            return super().update_child(ctx, stack_id, props)
        full = self.nested(ctx, props)  # records what the group decides (removed names)
        target = self.target(ctx, props)
        current = self._members(ctx, stack_id)
        first = None
        if outdated(current, target.removed, target.size, target.define):
            first = self._first_batch(ctx, current, target, policy)
        if first is None:
            self.start_update(ctx, stack_id, full)
            return Progress({_ACTION: "UPDATE"})
        self.start_update(ctx, stack_id, dataclasses.replace(full, template=first))
        return Progress({_ACTION: "UPDATE", _BATCH: policy.as_state()})

    def check_update_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Whether the child's update (in batches: every batch) ended."""
        if progress is not None and _BATCH in progress.state:
            return self._check_batches(ctx, props, progress.state)
        return super().check_update_complete(ctx, props, progress)

    # -- batches ----------------------------------------------------------------------------

    def _first_batch(
        self, ctx: ResourceContext, current: Members, target: Target, policy: BatchPolicy
    ) -> Mapping[str, Any] | None:
        """The child template of the first batch (``None``: nothing to do in batches), after
        checking that the pauses fit in the stack's timeout (as Heat does)."""
        members = next_members(current, target.removed, target.size, policy, target.define)
        if members is None:
            return None
        services = _policies(ctx)
        if policy.pause_time > 0 and services is not None:
            count = count_batches(current, target.removed, target.size, policy, target.define)
            if policy.pause_time * max(count - 1, 0) >= services.stack_timeout(ctx):
                raise PluginError(TIMEOUT_MESSAGE, resource=ctx.resource_name, kind="ValueError")
        return child_template(members)

    def _members(self, ctx: ResourceContext, stack_id: str) -> Members:
        services = _policies(ctx)
        if services is None:
            raise PluginError(
                f"{ctx.resource_type}: this engine cannot read a group's members",
                resource=ctx.resource_name,
            )
        return services.resource_definitions(ctx, stack_id)

    def _check_batches(
        self, ctx: ResourceContext, props: Props, state: Mapping[str, Any]
    ) -> CheckResult:
        """The running batch ended: pause, start the next batch, or end."""
        settled = self.settled(ctx, str(state[_ACTION]))
        if settled is not True:
            return settled
        stack_id = child_stack_id(ctx)
        assert stack_id is not None  # settled() found the child
        policy = BatchPolicy.from_state(state[_BATCH])
        target = self.target(ctx, props)
        current = self._members(ctx, stack_id)
        members = next_members(current, target.removed, target.size, policy, target.define)
        if members is None:
            return True
        if policy.pause_time > 0:
            now, until = ctx.clock.now(), state.get(_PAUSE_UNTIL)
            if until is None:
                paused = Progress({**state, _PAUSE_UNTIL: now + policy.pause_time})
                return PollAfter(policy.pause_time, paused)
            if now < float(until):
                return PollAfter(float(until) - now)
        nested = NestedTemplate(child_template(members), files=self.parent_files)
        self.start_update(ctx, stack_id, nested)
        running = Progress({_ACTION: "UPDATE", _BATCH: state[_BATCH]})
        return PollAfter(fallback_poll(nested_services(ctx)), running)


def normalised(definition: Mapping[str, Any]) -> dict[str, Any]:
    """``definition`` as the child's stored template gives it back (JSON), so a member's new
    definition compares equal to the stored one when nothing changed."""
    loaded: dict[str, Any] = json.loads(json.dumps(definition))
    return loaded
