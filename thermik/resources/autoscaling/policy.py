"""``OS::Heat::ScalingPolicy``: a signal to it resizes its group by its adjustment.

A policy holds an adjustment (``adjustment_type``, ``scaling_adjustment``,
``min_adjustment_step``, ``cooldown``). Any signal to it (an alarm's, whatever its state, as in
Heat) is passed on to the group ``auto_scaling_group_id`` names as that adjustment; the group
decides whether it resizes (:func:`~thermik.resources.autoscaling.capacity.decide`).

The policy is signalled through the REST API (``signal_url``, with credentials) or through
``alarm_url``: a signed URL served by the engine that needs no credentials and never expires
(:mod:`thermik.delivery.resource_signals`), what an alarm service or a monitoring script POSTs
to. Without Aodh, anything that can POST scales the group.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Final
from urllib.parse import quote

from thermik.errors import InvalidSignal, NotFound, PropertyError
from thermik.resources.autoscaling.capacity import (
    ADJUSTMENT_TYPES,
    PERCENT_CHANGE_IN_CAPACITY,
)
from thermik.resources.constraints import AllowedValues, Range
from thermik.resources.context import ResourceContext, ValidationContext, physical_resource_name
from thermik.resources.nested_services import NestedStackServices, PeerSignals
from thermik.resources.plugin import NeedsReplacement, Progress, Props, ResourcePlugin
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    PropertiesSchema,
    PropertySchema,
    SupportStatus,
    Type,
)
from thermik.resources.signal_urls import signal_urls

ALARM_URL, SIGNAL_URL = "alarm_url", "signal_url"
_STEP_NEEDS_PERCENT: Final = (
    "min_adjustment_step property should only be specified for adjustment_type with value "
    "percent_change_in_capacity."
)


def alarm_state(details: Mapping[str, Any] | None) -> str:
    """The alarm state a signal reports (``alarm`` when it says none), for the event."""
    if not isinstance(details, Mapping):
        return "alarm"
    state = details.get("current", details.get("state", "alarm"))
    return str(state).lower()


def _resizing(ctx: ResourceContext, services: object, group_id: str) -> bool:
    """Whether the group's members (its child stack, whose id is the group's reference id)
    are being changed now (only a group of the policy's own stack is looked at)."""
    if not isinstance(services, NestedStackServices) or ctx.peer_data(group_id) is None:
        return False
    try:
        return not services.state(ctx, group_id).settled
    except NotFound:
        return False


class ScalingPolicy(ResourcePlugin):
    """``OS::Heat::ScalingPolicy``: resizes an ``OS::Heat::AutoScalingGroup`` when
    signalled."""

    support_status = SupportStatus(version="2014.1")
    takes_signals = True
    signal_refreshes_metadata = False
    properties_schema: ClassVar[PropertiesSchema] = {
        "auto_scaling_group_id": PropertySchema(
            Type.STRING, "The group to resize (its reference id).", required=True
        ),
        "adjustment_type": PropertySchema(
            Type.STRING,
            "How scaling_adjustment is read.",
            required=True,
            update_allowed=True,
            constraints=(AllowedValues(ADJUSTMENT_TYPES),),
        ),
        "scaling_adjustment": PropertySchema(
            Type.NUMBER,
            "Members to add (negative: remove), the size to set, or the percentage to change by.",
            required=True,
            update_allowed=True,
        ),
        "cooldown": PropertySchema(
            Type.NUMBER, "Seconds after a resize before the next.", update_allowed=True
        ),
        "min_adjustment_step": PropertySchema(
            Type.INTEGER,
            "Fewest members a percent_change_in_capacity adds or removes.",
            update_allowed=True,
            constraints=(Range(min=0),),
        ),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        ALARM_URL: AttributeSchema(
            "A signed URL that resizes the group when POSTed to, without credentials.",
            type=AttributeType.STRING,
        ),
        SIGNAL_URL: AttributeSchema(
            "The REST API URL of this resource's signal (it needs credentials).",
            type=AttributeType.STRING,
            support_status=SupportStatus(version="5.0.0"),
        ),
    }

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        """``min_adjustment_step`` goes with ``percent_change_in_capacity`` only."""
        kind, step = props.get("adjustment_type"), props.get("min_adjustment_step")
        if vctx.unresolved(kind) or step is None:
            return
        if kind != PERCENT_CHANGE_IN_CAPACITY:
            raise PropertyError(_STEP_NEEDS_PERCENT, path=("properties", "min_adjustment_step"))

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Nothing to make: the policy is its properties."""
        ctx.set_physical_id(physical_resource_name(ctx))
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | NeedsReplacement | None:
        """The next signal uses the new properties."""
        return None

    def handle_signal(
        self, ctx: ResourceContext, props: Props, data: Mapping[str, Any] | None
    ) -> str | None:
        """Pass the policy's adjustment on to its group."""
        services = getattr(ctx, "nested", None)
        if not isinstance(services, PeerSignals):
            raise InvalidSignal(
                "this engine cannot signal a scaling group", resource=ctx.resource_name
            )
        group_id = props["auto_scaling_group_id"]
        if _resizing(ctx, services, group_id):
            # Signals to one resource run one at a time: sent on, this one would wait for the
            # running resize and then apply, where Heat skips it.
            return f"alarm state {alarm_state(data)}: no scaling: the group is already scaling"
        adjustment = {
            "adjustment": props["scaling_adjustment"],
            "adjustment_type": props["adjustment_type"],
            "min_adjustment_step": props.get("min_adjustment_step"),
            "cooldown": props.get("cooldown"),
        }
        try:
            group = services.signal_peer(ctx, group_id, adjustment)
        except NotFound:
            raise InvalidSignal(
                f'Alarm {ctx.resource_name} could not find scaling group named "{group_id}"',
                resource=ctx.resource_name,
            ) from None
        return (
            f"alarm state {alarm_state(data)}: adjusting group {group} by "
            f"{props['scaling_adjustment']:g} ({props['adjustment_type']})"
        )

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        """The signed ``alarm_url`` and the API's ``signal_url`` (``None`` before create or
        when the engine serves no such URL)."""
        urls = signal_urls(ctx)
        if ctx.physical_id is None or urls is None:
            return None
        stack = ctx.stack
        if name == ALARM_URL:
            return urls.resource_signal_url(stack.id, ctx.resource_name)
        if name == SIGNAL_URL:
            return urls.public_url(
                f"/v1/{quote(stack.tenant, safe='')}/stacks/{quote(stack.name, safe='')}/"
                f"{stack.id}/resources/{quote(ctx.resource_name, safe='')}/signal"
            )
        return None
