"""Built-in types that need nothing but the engine: ``OS::Heat::None``, ``OS::Heat::Value`` and
``OS::Heat::Delay``. (``RandomString`` and ``TestResource`` have their own modules.)
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from thermik.errors import PropertyError
from thermik.resources.constraints import AllowedValues, CustomValidator, Range
from thermik.resources.context import ResourceContext, ValidationContext, physical_resource_name
from thermik.resources.plugin import (
    CheckResult,
    NeedsReplacement,
    PollAfter,
    Progress,
    Props,
    ResourcePlugin,
)
from thermik.resources.properties import Unresolved, never_unresolved, validate_properties
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    PropertiesSchema,
    PropertySchema,
    SupportStatus,
    Type,
)


class NoneResource(ResourcePlugin):
    """``OS::Heat::None``: does nothing, so it can stub out any other type in a registry.

    It accepts any properties and answers every attribute with ``None``; an update never
    changes or replaces it.
    """

    support_status = SupportStatus(version="5.0.0")
    dynamic_attributes = True
    store_only = True

    @classmethod
    def check_properties(
        cls,
        values: Props | None,
        *,
        unresolved: Unresolved = never_unresolved,
        custom_constraints: Mapping[str, CustomValidator] | None = None,
        path: Sequence[str | int] = (),
    ) -> dict[str, Any]:
        """Accept anything; the stubbed type's properties are ignored."""
        return {}

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Take a random UUID as physical id."""
        ctx.set_physical_id(str(uuid.UUID(int=ctx.random.getrandbits(128), version=4)))
        return None

    def needs_replacement(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> NeedsReplacement | None:
        """Never: a placeholder stays what it is."""
        return None


#: Value's ``type`` (a HOT parameter type) -> the property type its ``value`` is checked as.
_VALUE_TYPES = {
    "string": Type.STRING,
    "number": Type.NUMBER,
    "comma_delimited_list": Type.LIST,
    "json": Type.MAP,
    "boolean": Type.BOOLEAN,
}
_VALUE_DESCRIPTION = 'The expression that becomes the "value" attribute.'


class Value(ResourcePlugin):
    """``OS::Heat::Value``: exposes its ``value`` property as an attribute, optionally typed."""

    support_status = SupportStatus(version="7.0.0")
    store_only = True
    properties_schema: ClassVar[PropertiesSchema] = {
        "value": PropertySchema(Type.ANY, _VALUE_DESCRIPTION, required=True, update_allowed=True),
        "type": PropertySchema(
            Type.STRING,
            'The type the "value" property must have.',
            constraints=(AllowedValues(tuple(_VALUE_TYPES)),),
            update_allowed=True,
        ),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "value": AttributeSchema('The "value" property, as written (checked to be a "type").'),
    }

    @classmethod
    def check_properties(
        cls,
        values: Props | None,
        *,
        unresolved: Unresolved = never_unresolved,
        custom_constraints: Mapping[str, CustomValidator] | None = None,
        path: Sequence[str | int] = (),
    ) -> dict[str, Any]:
        """Check ``value`` against the type named by ``type``, when that is known; as in
        Heat, the value stays as written (a number given as ``"42"`` is the string ``"42"``)."""
        check = functools.partial(
            validate_properties,
            values=values,
            unresolved=unresolved,
            custom_constraints=custom_constraints,
            path=path,
        )
        props = check(cls.properties_schema)
        value_type = props.get("type")
        if not isinstance(value_type, str) or value_type not in _VALUE_TYPES:
            return props
        typed = PropertySchema(
            _VALUE_TYPES[value_type], _VALUE_DESCRIPTION, required=True, update_allowed=True
        )
        check({**cls.properties_schema, "value": typed})
        return props

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Nothing to create beyond a physical name."""
        ctx.set_physical_id(physical_resource_name(ctx))
        return None

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        """``value`` is the property as written."""
        return props.get("value") if name == "value" else None


_DELAY_ACTIONS = ("CREATE", "DELETE", "SUSPEND", "RESUME")


class Delay(ResourcePlugin):
    """``OS::Heat::Delay``: waits during chosen actions, with optional random jitter.

    The wait is ``min_wait + max_jitter * jitter_multiplier * U(0, 1)`` seconds; it is measured
    against the context clock and polled, never slept.
    """

    support_status = SupportStatus(version="11.0.0")
    properties_schema: ClassVar[PropertiesSchema] = {
        "min_wait": PropertySchema(
            Type.NUMBER,
            "Minimum seconds to wait during the chosen actions.",
            default=0,
            constraints=(Range(min=0),),
            update_allowed=True,
        ),
        "max_jitter": PropertySchema(
            Type.NUMBER,
            "Maximum random jitter added to the minimum wait, in jitter_multiplier units.",
            default=0,
            constraints=(Range(min=0),),
            update_allowed=True,
        ),
        "jitter_multiplier": PropertySchema(
            Type.NUMBER,
            "Seconds per unit of max_jitter.",
            default=1.0,
            constraints=(Range(min=0),),
            update_allowed=True,
        ),
        "actions": PropertySchema(
            Type.LIST,
            "The actions during which to wait.",
            default=["CREATE"],
            constraints=(AllowedValues(_DELAY_ACTIONS),),
            update_allowed=True,
        ),
    }

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        """The longest possible wait must fit in the stack timeout."""
        numbers = [props[k] for k in ("min_wait", "max_jitter", "jitter_multiplier")]
        if not vctx.strict or vctx.stack_timeout is None or any(map(vctx.unresolved, numbers)):
            return
        max_wait = numbers[0] + numbers[1] * numbers[2]
        if max_wait > vctx.stack_timeout:
            raise PropertyError(
                f"OS::Heat::Delay maximum delay {max_wait}s exceeds stack timeout."
            )

    def _start(self, ctx: ResourceContext, props: Props, action: str) -> Progress:
        wait = 0.0
        if action in props["actions"]:
            jitter = props["max_jitter"] * props["jitter_multiplier"]
            wait = props["min_wait"] + jitter * ctx.random.random()
        return Progress({"started": ctx.clock.now(), "wait": wait})

    @staticmethod
    def _waited(ctx: ResourceContext, progress: Progress | None) -> CheckResult:
        if progress is None:
            return True
        remaining = progress.state["started"] + progress.state["wait"] - ctx.clock.now()
        return True if remaining <= 0 else PollAfter(remaining)

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Start the CREATE wait (zero unless CREATE is among ``actions``)."""
        return self._start(ctx, props, "CREATE")

    def check_create_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Done once the wait has passed."""
        return self._waited(ctx, progress)

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Start the DELETE wait."""
        return self._start(ctx, props, "DELETE")

    def check_delete_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Done once the wait has passed."""
        return self._waited(ctx, progress)

    def suspend(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Start the SUSPEND wait."""
        return self._start(ctx, props, "SUSPEND")

    def check_suspend_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Done once the wait has passed."""
        return self._waited(ctx, progress)

    def resume(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Start the RESUME wait."""
        return self._start(ctx, props, "RESUME")

    def check_resume_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Done once the wait has passed."""
        return self._waited(ctx, progress)
