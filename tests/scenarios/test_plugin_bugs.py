"""A buggy plugin, or a bug in the shell, fails its resource or its traversal: no stack stays
IN_PROGRESS, no actor dies leaving its stack waiting (the plugins here are registered as real
types; nothing is patched)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.scenarios.runtime_harness import harness_with_types
from thermik.engine.states import Action, State
from thermik.persistence.values import Stack
from thermik.resources.context import MAX_PHYSICAL_ID, ResourceContext
from thermik.resources.plugin import Progress, Props, ResourcePlugin
from thermik.resources.schema import PropertiesSchema, PropertySchema, Type

TYPE = "Test::PhysicalId"
#: What each ``kind`` property value makes the plugin give ``set_physical_id``.
IDS: dict[str, Any] = {
    "int": 12345,
    "dict": {"id": "x"},
    "list": ["x"],
    "bool": True,
    "long": "x" * (MAX_PHYSICAL_ID + 1),
    "none": None,
}


class PhysicalId(ResourcePlugin):
    """Sets the physical id its ``kind`` property names (one of :data:`IDS`) on create."""

    properties_schema: ClassVar[PropertiesSchema] = {"kind": PropertySchema(Type.STRING)}

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        ctx.set_physical_id(IDS[props["kind"]])
        return None


class InlinePhysicalId(PhysicalId):
    """The same, as a store-only type whose actions run on the resource actor's thread."""

    store_only = True


class BrokenInline(ResourcePlugin):
    """A store-only type whose own ``runs_inline`` raises: a plugin bug on the actor thread,
    outside any executor step."""

    store_only = True

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        return None

    @classmethod
    def runs_inline(cls, props: Props) -> bool:
        raise TypeError("unsupported operand type(s) for +: 'int' and 'str'")


TYPES: dict[str, type[ResourcePlugin]] = {
    TYPE: PhysicalId,
    "Test::InlinePhysicalId": InlinePhysicalId,
    "Test::BrokenInline": BrokenInline,
}


def _of(kind: str, type_name: str = TYPE) -> dict[str, Any]:
    return {"type": type_name, "properties": {"kind": kind}}


@pytest.mark.parametrize("type_name", [TYPE, "Test::InlinePhysicalId"])
def test_an_integer_physical_id_is_stored_as_its_text(tmp_path: Path, type_name: str) -> None:
    with harness_with_types(tmp_path, TYPES) as harness:
        stack_id = harness.create({"a": _of("int", type_name), "b": _of("none", type_name)})
        live = harness.live(stack_id)
        assert live["a"].physical_resource_id == "12345"
        assert live["b"].physical_resource_id is None
        assert harness.run(stack_id, Action.DELETE) == "DELETE_COMPLETE"


@pytest.mark.parametrize("type_name", [TYPE, "Test::InlinePhysicalId"])
@pytest.mark.parametrize(
    ("kind", "why"),
    [
        ("dict", "the physical resource id must be a string, not dict {'id': 'x'}"),
        ("list", "the physical resource id must be a string, not list ['x']"),
        ("bool", "the physical resource id must be a string, not bool True"),
        ("long", f"the physical resource id is longer than {MAX_PHYSICAL_ID} characters (256)"),
    ],
)
def test_a_physical_id_the_engine_cannot_store_fails_its_resource(
    tmp_path: Path, type_name: str, kind: str, why: str
) -> None:
    with harness_with_types(tmp_path, TYPES) as harness:
        stack_id = harness.stack({"ok": _of("int", type_name), "bad": _of(kind, type_name)})
        assert harness.run(stack_id, Action.CREATE) == "CREATE_FAILED"
        bad = harness.live(stack_id)["bad"]
        assert (bad.action, bad.status, bad.engine_id) == ("CREATE", "FAILED", None)
        assert bad.status_reason.startswith(f"Error: resources.bad: {why}"), bad.status_reason
        assert "Traceback" not in bad.status_reason
        assert bad.physical_resource_id is None
        assert harness.reason(stack_id) == f"Resource CREATE failed: {bad.status_reason}"
        assert harness.run(stack_id, Action.DELETE) == "DELETE_COMPLETE"


def test_a_plugin_bug_on_the_actor_thread_fails_its_resource(tmp_path: Path) -> None:
    with harness_with_types(tmp_path, TYPES) as harness:
        template = {"ok": _of("int"), "bad": {"type": "Test::BrokenInline"}}
        stack_id = harness.stack(template)
        assert harness.run(stack_id, Action.CREATE) == "CREATE_FAILED"
        reason = harness.reason(stack_id)
        assert reason == (
            "Resource CREATE failed: TypeError: resources.bad: "
            "unsupported operand type(s) for +: 'int' and 'str'"
        )
        assert harness.states(stack_id)["ok"] == "CREATE_COMPLETE"
        # The actor lived on: the same version is converged again by the next operation.
        assert harness.run(stack_id, Action.DELETE) == "DELETE_COMPLETE"


class FailingObserver:
    """A stack observer that raises once, the first time it is told ``state``: a bug in the
    shell, while it runs the traversal's commands."""

    def __init__(self, state: str) -> None:
        self.state = state
        self.raised = False

    def __call__(self, stack: Stack, state: State, reason: str) -> None:
        if str(state) == self.state and not self.raised:
            self.raised = True
            raise RuntimeError(f"observer broke on {state}")


def test_a_shell_bug_while_starting_fails_the_traversal(tmp_path: Path) -> None:
    observer = FailingObserver("CREATE_IN_PROGRESS")
    with harness_with_types(tmp_path, TYPES, stack_observer=observer) as harness:
        stack_id = harness.stack({"a": _of("int")})
        assert harness.run(stack_id, Action.CREATE) == "CREATE_FAILED"
        assert observer.raised
        assert harness.reason(stack_id) == (
            "Engine error: RuntimeError: observer broke on CREATE_IN_PROGRESS"
        )
        assert harness.locked(stack_id) == []
        assert harness.run(stack_id, Action.DELETE) == "DELETE_COMPLETE"


def test_a_shell_bug_after_a_reply_leaves_the_stack_actor_alive(tmp_path: Path) -> None:
    observer = FailingObserver("CREATE_COMPLETE")
    with harness_with_types(tmp_path, TYPES, stack_observer=observer) as harness:
        stack_id = harness.create({"a": _of("int")})
        assert observer.raised
        # The actor retired as usual: the next operation gets a live one.
        assert harness.run(stack_id, Action.DELETE) == "DELETE_COMPLETE"
