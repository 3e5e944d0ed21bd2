"""``OS::Heat::TestResource``: a resource with knobs for exercising the engine.

Heat's functional and rally tests drive stacks with it: it stores a string, can fail, can ask for
replacement, and can take its time. Waits are measured against the context clock and polled;
``client_name``/``entity_name`` (which make Heat poll a cloud client while waiting) are accepted
and ignored, since there is no cloud to poll.
"""

from __future__ import annotations

from typing import Any, ClassVar

from thermik.errors import PluginError
from thermik.resources.constraints import CustomConstraint
from thermik.resources.context import ResourceContext, physical_resource_name
from thermik.resources.plugin import (
    CheckResult,
    NeedsReplacement,
    Operation,
    PollAfter,
    Progress,
    Props,
    ResourcePlugin,
)
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    CacheMode,
    PropertiesSchema,
    PropertySchema,
    SupportStatus,
    Type,
)

_DATA_KEY = "value"
#: How often to look again while an infinite wait (``wait_secs: -1``) lasts.
_INFINITE_POLL = 60.0


def _wait(description: str) -> PropertySchema:
    return PropertySchema(Type.NUMBER, description, update_allowed=True)


class TestResource(ResourcePlugin):
    """``OS::Heat::TestResource``: stores ``value``; ``fail``, ``update_replace`` and waits."""

    __test__ = False  # not a pytest test class despite its name

    support_status = SupportStatus(version="5.0.0")
    store_only = True
    properties_schema: ClassVar[PropertiesSchema] = {
        "value": PropertySchema(
            Type.STRING, "The string to store.", default="test_string", update_allowed=True
        ),
        "update_replace": PropertySchema(
            Type.BOOLEAN,
            "Replace the resource, instead of updating it, when value changes.",
            default=False,
            update_allowed=True,
        ),
        "update_replace_value": PropertySchema(
            Type.STRING,
            "A value that can only change by replacement.",
            support_status=SupportStatus(version="7.0.0"),
        ),
        "fail": PropertySchema(
            Type.BOOLEAN,
            "Fail create and update (after the wait); delete still succeeds.",
            default=False,
            update_allowed=True,
        ),
        "client_name": PropertySchema(
            Type.STRING, "Client to poll while waiting (ignored).", default="", update_allowed=True
        ),
        "entity_name": PropertySchema(
            Type.STRING, "Client entity to poll (ignored).", default="", update_allowed=True
        ),
        "wait_secs": PropertySchema(
            Type.NUMBER,
            "Seconds every action takes (-1 waits forever).",
            default=0,
            update_allowed=True,
        ),
        "action_wait_secs": PropertySchema(
            Type.MAP,
            "Seconds per action, overriding wait_secs.",
            schema={
                "create": _wait("Seconds create takes."),
                "update": _wait("Seconds update takes."),
                "delete": _wait("Seconds delete takes."),
            },
            update_allowed=True,
        ),
        "attr_wait_secs": PropertySchema(
            Type.NUMBER,
            "Seconds resolving the output attribute takes.",
            default=0,
            update_allowed=True,
            support_status=SupportStatus(version="6.0.0"),
        ),
        "constraint_prop_secs": PropertySchema(
            Type.NUMBER,
            "Seconds the test_constr custom constraint takes to validate.",
            default=0,
            constraints=(CustomConstraint("test_constr"),),
            update_allowed=True,
            support_status=SupportStatus(version="6.0.0"),
        ),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "output": AttributeSchema("The stored string.", cache_mode=CacheMode.NONE),
    }

    @staticmethod
    def _wait_secs(props: Props, operation: Operation) -> float:
        per_action = props["action_wait_secs"] or {}
        secs = per_action.get(operation.value.lower())
        return float(props["wait_secs"] if secs is None else secs)

    @classmethod
    def runs_inline(cls, props: Props) -> bool:
        """Not when resolving an attribute sleeps (``attr_wait_secs``)."""
        return not props.get("attr_wait_secs")

    def _start(self, ctx: ResourceContext, props: Props, operation: Operation) -> Progress:
        wait = self._wait_secs(props, operation)
        return Progress({"started": ctx.clock.now(), "wait": wait, "op": operation.value})

    def _check(self, ctx: ResourceContext, props: Props, progress: Progress | None) -> CheckResult:
        if progress is None:
            return True
        wait = progress.state["wait"]
        if wait < 0:
            return PollAfter(_INFINITE_POLL)
        remaining = progress.state["started"] + wait - ctx.clock.now()
        if remaining > 0:
            return PollAfter(remaining)
        if props["fail"] and progress.state["op"] != Operation.DELETE:
            # Heat's TestResource raises ValueError, which its status reasons name.
            raise PluginError(f"Test Resource failed {ctx.resource_name}", kind="ValueError")
        return True

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Store ``value`` (unless failing) and start the create wait."""
        if not props["fail"]:
            ctx.data.set(_DATA_KEY, props["value"])
            ctx.set_physical_id(physical_resource_name(ctx))
        return self._start(ctx, props, Operation.CREATE)

    def check_create_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Done after the wait; raises then when ``fail`` is set."""
        return self._check(ctx, props, progress)

    def needs_replacement(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> NeedsReplacement | None:
        """Replace when ``value`` changes with ``update_replace`` set, or as the schema says."""
        if "value" in changed and new_props["update_replace"]:
            return NeedsReplacement("update_replace is set")
        return super().needs_replacement(ctx, new_props, old_props, changed)

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | NeedsReplacement | None:
        """Store a changed ``value`` in place and start the update wait."""
        if "value" not in changed or not new_props["value"]:
            return Progress({"started": ctx.clock.now(), "wait": 0, "op": "UPDATE"})
        if not new_props["fail"]:
            ctx.data.set(_DATA_KEY, new_props["value"])
        return self._start(ctx, new_props, Operation.UPDATE)

    def check_update_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Done after the wait; raises then when ``fail`` is set."""
        return self._check(ctx, props, progress)

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Start the delete wait (delete never fails)."""
        return self._start(ctx, props, Operation.DELETE)

    def check_delete_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Done after the wait."""
        return self._check(ctx, props, progress)

    def check(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Healthy when it was created."""
        if ctx.physical_id is None:
            raise PluginError("Resource not created", kind="Exception")
        return None

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        """``output`` is the stored value, after ``attr_wait_secs``."""
        if props["attr_wait_secs"]:
            ctx.clock.sleep(props["attr_wait_secs"])
        return ctx.data.get(_DATA_KEY) if name == "output" else None
