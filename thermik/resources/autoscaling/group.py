"""``OS::Heat::AutoScalingGroup``: a group whose size scaling signals change.

The members live in a child stack, as a ``ResourceGroup``'s do
(:class:`~thermik.resources.batched_group.BatchedGroup`): named ``"0"``, ``"1"``, ..., a
scale-up adds the next indices and a scale-down removes the highest (the newest). The size the
group has now is resource data (``capacity``), so a stack update that sets no
``desired_capacity`` keeps the size signals gave it, as in Heat; one that sets it resizes to it.

An update that changes ``resource`` replaces the members in batches as ``rolling_updates``
says (``max_batch_size`` at a time, ``min_in_service`` kept, ``pause_time`` between batches:
the batching of :mod:`~thermik.resources.group_batches`); in Heat this policy is a property of
the group, not an ``update_policy``.

A group is resized by a signal (what :class:`~thermik.resources.autoscaling.policy.ScalingPolicy`
sends, or anyone with the right to signal the group) whose data is an adjustment:
``{"adjustment": 2, "adjustment_type": "change_in_capacity", "min_adjustment_step": null,
"cooldown": null}``. Whether it resizes, and to what, is :func:`.capacity.decide`'s answer;
the resize itself is one update of the child stack, which the signal starts and waits for (as
Heat's resize does; a signal arriving meanwhile is skipped: the group is scaling). The group's
own state does not change; its stored attributes are resolved again once the signal is handled
(``signal_refreshes_attributes``), so the stack's outputs show the new members.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final

from thermik.errors import PropertyError
from thermik.resources.autoscaling.capacity import Bounds, LastScaling, adjustment_of, decide
from thermik.resources.batched_group import ROLLING_UPDATE, BatchedGroup, Target, normalised
from thermik.resources.constraints import Range
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.group_batches import BatchPolicy
from thermik.resources.group_templates import child_template, member_names
from thermik.resources.nested_group import ChildMembers, MemberCheck, member_attribute
from thermik.resources.nested_services import (
    COMPLETE,
    NestedPolicies,
    NestedState,
    NestedTemplate,
    NestedTimes,
    child_stack_id,
    nested_services,
)
from thermik.resources.plugin import Props
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    PropertiesSchema,
    PropertySchema,
    SupportStatus,
    Type,
)

#: Resource data: the group's size now, and its latest resize (JSON).
CAPACITY_KEY: Final = "capacity"
#: Seconds between two looks at a resizing child.
_RESIZE_POLL: Final = 0.25
#: Most seconds a signal waits for a resize: its sender (the REST API, a policy) waits five
#: minutes for the answer. A longer resize goes on; its members show from the next update.
_LONGEST_WAIT: Final = 240.0
SCALING_KEY: Final = "last_scaling"
OUTPUTS, OUTPUTS_LIST, CURRENT_SIZE = "outputs", "outputs_list", "current_size"


def rolling_updates_schema() -> PropertySchema:
    """The ``rolling_updates`` property (a map whose entries all have defaults)."""
    return PropertySchema(
        Type.MAP,
        "How an update that changes the members' definition replaces them.",
        schema={
            "min_in_service": PropertySchema(
                Type.INTEGER,
                "Members kept in service while the members are replaced.",
                default=0,
                constraints=(Range(min=0),),
            ),
            "max_batch_size": PropertySchema(
                Type.INTEGER,
                "Most members replaced at once.",
                default=1,
                constraints=(Range(min=1),),
            ),
            "pause_time": PropertySchema(
                Type.NUMBER,
                "Seconds to wait between batches.",
                default=0,
                constraints=(Range(min=0),),
            ),
        },
        default={"min_in_service": 0, "max_batch_size": 1, "pause_time": 0},
        update_allowed=True,
    )


def member(resource: Mapping[str, Any]) -> dict[str, Any]:
    """A member's definition in the child template, from the ``resource`` property."""
    out: dict[str, Any] = {"type": resource["type"]}
    for key in ("properties", "metadata"):
        if resource.get(key) is not None:
            out[key] = resource[key]
    return out


def initial_capacity(props: Props) -> int:
    """The size a new group starts with: ``desired_capacity``, else ``min_size``."""
    desired = props.get("desired_capacity")
    return int(props["min_size"] if desired is None else desired)


def bounds(props: Props) -> Bounds:
    """The group's ``min_size`` and ``max_size``."""
    return Bounds(int(props["min_size"]), int(props["max_size"]))


class AutoScalingGroup(BatchedGroup):
    """``OS::Heat::AutoScalingGroup``: between ``min_size`` and ``max_size`` copies of one
    resource definition, resized by scaling signals."""

    support_status = SupportStatus(version="2014.1")
    takes_signals = True
    signal_refreshes_attributes = True
    properties_schema: ClassVar[PropertiesSchema] = {
        "resource": PropertySchema(
            Type.MAP,
            "The definition of every member, in HOT format, as if declared in the template.",
            required=True,
            update_allowed=True,
        ),
        "max_size": PropertySchema(
            Type.INTEGER,
            "Most members the group has.",
            required=True,
            update_allowed=True,
            constraints=(Range(min=0),),
        ),
        "min_size": PropertySchema(
            Type.INTEGER,
            "Fewest members the group has.",
            required=True,
            update_allowed=True,
            constraints=(Range(min=0),),
        ),
        "cooldown": PropertySchema(
            Type.INTEGER, "Seconds after a resize before the next.", update_allowed=True
        ),
        "desired_capacity": PropertySchema(
            Type.INTEGER,
            "Members to create (and to resize to on every update that sets it).",
            update_allowed=True,
        ),
        "rolling_updates": rolling_updates_schema(),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        OUTPUTS: AttributeSchema(
            "Member name -> the member attribute the get_attr path names.",
            type=AttributeType.MAP,
            support_status=SupportStatus(version="2014.2"),
        ),
        OUTPUTS_LIST: AttributeSchema(
            "The member attribute the get_attr path names, of every member.",
            type=AttributeType.LIST,
            support_status=SupportStatus(version="2014.2"),
        ),
        CURRENT_SIZE: AttributeSchema(
            "How many members the group has.",
            type=AttributeType.INTEGER,
            support_status=SupportStatus(version="2015.1"),
        ),
        "refs": AttributeSchema(
            "Reference ids of the members.",
            type=AttributeType.LIST,
            support_status=SupportStatus(version="7.0.0"),
        ),
        "refs_map": AttributeSchema(
            "Member name -> reference id.",
            type=AttributeType.MAP,
            support_status=SupportStatus(version="7.0.0"),
        ),
    }

    # -- validation -------------------------------------------------------------------------

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        """``resource`` names a type; ``min_size <= max_size``; ``desired_capacity`` within."""
        resource = props.get("resource")
        kind = resource.get("type") if isinstance(resource, Mapping) else None
        if isinstance(resource, Mapping) and not vctx.unresolved(kind):
            self._check_type(kind)
        low, high, desired = (props.get(k) for k in ("min_size", "max_size", "desired_capacity"))
        if not isinstance(low, int) or not isinstance(high, int):
            return  # unresolved while validating: checked when it is known
        if low > high:
            raise PropertyError(
                "min_size can not be greater than max_size", path=("properties", "min_size")
            )
        if isinstance(desired, int) and not low <= desired <= high:
            raise PropertyError(
                "desired_capacity must be between min_size and max_size",
                path=("properties", "desired_capacity"),
            )

    @staticmethod
    def _check_type(kind: Any) -> None:
        if not isinstance(kind, str) or not kind:
            raise PropertyError(
                "the member definition needs a 'type'", path=("properties", "resource")
            )

    @classmethod
    def members_to_check(cls, props: Props) -> tuple[list[MemberCheck], int]:
        """The member definition, repeated as many times as the group starts with."""
        resource = props.get("resource")
        if not isinstance(resource, Mapping):
            return [], 0
        check = MemberCheck(
            "0",
            resource.get("type"),
            resource.get("properties"),
            ("properties", "resource", "type"),
            ("properties", "resource", "properties"),
        )
        try:
            repeat = initial_capacity(props)
        except (KeyError, TypeError, ValueError):
            repeat = 1
        return [check], max(repeat, 1)

    # -- members ----------------------------------------------------------------------------

    @staticmethod
    def capacity(ctx: ResourceContext, props: Props) -> int:
        """The group's size now (recorded), else the size it starts with."""
        stored = ctx.data.get(CAPACITY_KEY)
        return int(stored) if stored is not None else initial_capacity(props)

    def member_names(self, ctx: ResourceContext, props: Props) -> list[str]:
        """The members the group's size gives."""
        return member_names(self.capacity(ctx, props), ())

    def target(self, ctx: ResourceContext, props: Props) -> Target:
        """The recorded size, every member with the ``resource`` definition."""

        @functools.cache  # a batch compares every member's definition more than once
        def define(name: str) -> dict[str, Any]:
            return normalised(member(props["resource"]))

        return Target(self.capacity(ctx, props), frozenset(), define)

    def template(self, props: Props, size: int) -> dict[str, Any]:
        """The child template of a group of ``size`` members."""
        definition = member(props["resource"])
        return child_template({name: definition for name in member_names(size, ())})

    def build_child(self, ctx: ResourceContext, props: Props) -> Mapping[str, Any]:
        """The members' template for a create or a stack update, after recording the size:
        ``desired_capacity`` when set, else the size the group has, within the bounds."""
        desired = props.get("desired_capacity")
        size = self.capacity(ctx, props) if desired is None else int(desired)
        size = max(int(props["min_size"]), min(int(props["max_size"]), size))
        self._record(ctx, size, float(props.get("cooldown") or 0))
        return self.template(props, size)

    def batch_policy(self, ctx: ResourceContext, props: Props, key: str) -> BatchPolicy | None:
        """``rolling_updates`` (a property here) for updates; a group never creates in
        batches."""
        if key != ROLLING_UPDATE:
            return None
        entry = props.get("rolling_updates") or {}
        return BatchPolicy.from_entry({"max_batch_size": 1, **entry})

    # -- scaling ----------------------------------------------------------------------------

    def handle_signal(
        self, ctx: ResourceContext, props: Props, data: Mapping[str, Any] | None
    ) -> str | None:
        """Resize the group as the adjustment in ``data`` asks, if the cooldown lets it."""
        request = adjustment_of(data)
        stack_id = child_stack_id(ctx)
        if stack_id is None:
            return "no scaling: the group has no members yet"
        state = nested_services(ctx).state(ctx, stack_id)
        current = self.capacity(ctx, props)
        decision = decide(
            current,
            request,
            bounds(props),
            group_cooldown=float(props.get("cooldown") or 0),
            now=ctx.clock.now(),
            last=self._last(ctx, stack_id),
            scaling=not state.settled,
        )
        if decision.capacity is None:
            return decision.reason
        self._record(ctx, decision.capacity, decision.cooldown)
        nested = NestedTemplate(self.template(props, decision.capacity), files=self.parent_files)
        self.start_update(ctx, stack_id, nested)
        ended = self._wait(ctx, stack_id)
        if not ended.settled:
            return f"{decision.reason} (still running)"
        self._ended(ctx)
        if ended.status != COMPLETE:
            return f"{decision.reason} failed: {ended.reason}"
        return decision.reason

    @staticmethod
    def _wait(ctx: ResourceContext, stack_id: str) -> NestedState:
        """Wait for the child's resize to end (Heat's resize waits too), within the stack's
        timeout and the time a signal's sender waits for its answer; its state then."""
        services = nested_services(ctx)
        timeout = services.stack_timeout(ctx) if isinstance(services, NestedPolicies) else 3600
        deadline = ctx.clock.now() + min(timeout, _LONGEST_WAIT)
        while True:
            state = services.state(ctx, stack_id)
            if state.settled or ctx.clock.now() >= deadline:
                return state
            ctx.clock.sleep(_RESIZE_POLL)

    def _record(self, ctx: ResourceContext, size: int, cooldown: float) -> None:
        ctx.data.set(CAPACITY_KEY, str(size))
        started = {"started_at": ctx.clock.now(), "cooldown": cooldown}
        ctx.data.set(SCALING_KEY, json.dumps(started))

    @staticmethod
    def _ended(ctx: ResourceContext) -> None:
        stored = ctx.data.get(SCALING_KEY)
        if stored is not None:
            record = {**json.loads(stored), "ended_at": ctx.clock.now()}
            ctx.data.set(SCALING_KEY, json.dumps(record))

    @staticmethod
    def _last(ctx: ResourceContext, stack_id: str) -> LastScaling | None:
        """The latest resize (or create, or update): its end as recorded, else as the child
        says."""
        stored = ctx.data.get(SCALING_KEY)
        if stored is None:
            return None
        record = json.loads(stored)
        ended = record.get("ended_at")
        services = nested_services(ctx)
        if ended is None and isinstance(services, NestedTimes):
            ended = services.ended_at(ctx, stack_id)
        return LastScaling(
            float(record["started_at"]),
            float(record["cooldown"]),
            None if ended is None else float(ended),
        )

    # -- attributes -------------------------------------------------------------------------

    def attribute(
        self, ctx: ResourceContext, props: Props, name: str, path: Sequence[str | int] = ()
    ) -> Any:
        """``current_size``, ``outputs`` and ``outputs_list`` (a member attribute named by the
        path), and the group attributes every group has."""
        if name == CURRENT_SIZE:
            return self.capacity(ctx, props) if ctx.physical_id is not None else None
        if name not in (OUTPUTS, OUTPUTS_LIST):
            return super().attribute(ctx, props, name, path)
        if ctx.physical_id is None or not path:
            return None
        names = self.member_names(ctx, props)
        members = ChildMembers(ctx, ctx.physical_id)
        values = member_attribute(members, names, "attributes", path)
        if name == OUTPUTS:
            return values
        return [values[n] for n in names]
