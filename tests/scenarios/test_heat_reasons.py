"""Status reasons and events of failures, worded as OpenStack Heat words them.

Each expectation was read off Heat's convergence engine running the same template: a resource's
reason is ``<exception class>: resources.<name>: <message>``, the stack's is ``Resource <ACTION>
failed: `` and that, and a child stack's failure is re-rooted under the parent's resource.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.scenarios.runtime_harness import HOT, KEY, REGISTRY, TEST_SETTINGS, Harness, res
from thermik.actors.runtime import EngineRuntime
from thermik.conf.settings import DatabaseSettings, LimitSettings
from thermik.engine.states import Action
from thermik.errors import PluginError
from thermik.orchestration.nested import NestedStacks
from thermik.persistence.factory import open_store
from thermik.persistence.values import NewStack
from thermik.resources.context import ResourceContext
from thermik.resources.plugin import Progress, Props
from thermik.resources.registry import Registry
from thermik.resources.test_resource import TestResource


class FailingDelete(TestResource):
    """A test resource whose delete fails, as a cloud refusing to delete would."""

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Refuse."""
        raise PluginError("boom delete", kind="Exception")


@pytest.fixture
def heat(sqlite_url: str) -> Iterator[Harness]:
    """A harness with nested stacks and the ``Test::FailingDelete`` type."""
    registry = Registry({name: REGISTRY.get(name) for name in REGISTRY.types()})
    registry.register("Test::FailingDelete", FailingDelete)
    store = open_store(DatabaseSettings(sqlite_url, busy_timeout=10), KEY)
    services = NestedStacks(store, registry, LimitSettings(), fallback_poll=60.0)
    runtime = EngineRuntime.start(
        store=store, registry=registry, settings=TEST_SETTINGS, nested=services, resume=False
    )
    services.attach(runtime)
    try:
        yield Harness(store, runtime)
    finally:
        runtime.stop()
        store.close()


def stack_of(
    harness: Harness,
    resources: dict[str, Any],
    files: dict[str, Any] | None = None,
    name: str = "s",
    **fields: Any,
) -> str:
    template = {"heat_template_version": HOT, "resources": resources}
    files_map = {name: json.dumps(doc) for name, doc in (files or {}).items()}
    template_id = harness.store.store_raw_template(template, {}, files_map)
    return harness.store.create_stack(NewStack(name, "tenant", template_id, **fields)).id


def child(**inner: Any) -> dict[str, Any]:
    return {"heat_template_version": HOT, "resources": {"inner": inner}}


def test_a_failed_update_and_its_rollback(heat: Harness) -> None:
    stack_id = stack_of(heat, {"a": res("x"), "b": res("x")}, disable_rollback=False)
    assert heat.run(stack_id, Action.CREATE) == "CREATE_COMPLETE"
    bad = heat.template({"a": res("y"), "b": res("y", fail=True)})
    assert heat.run(stack_id, Action.UPDATE, bad) == "ROLLBACK_COMPLETE"
    reason = "ValueError: resources.b: Test Resource failed b"
    events = [event for event in heat.events(stack_id) if event[0] in ("s", "b")]
    start = events.index(("s", "UPDATE", "IN_PROGRESS", "Stack UPDATE started"))
    assert events[start:] == [
        ("s", "UPDATE", "IN_PROGRESS", "Stack UPDATE started"),
        ("b", "UPDATE", "IN_PROGRESS", "state changed"),
        ("b", "UPDATE", "FAILED", reason),
        ("s", "UPDATE", "FAILED", f"Resource UPDATE failed: {reason}"),
        ("s", "ROLLBACK", "IN_PROGRESS", "Stack ROLLBACK started"),
        # The failed version is replaced by one of the old definition, as Heat does.
        ("b", "CREATE", "IN_PROGRESS", "state changed"),
        ("b", "CREATE", "COMPLETE", "state changed"),
        ("b", "DELETE", "IN_PROGRESS", "state changed"),
        ("b", "DELETE", "COMPLETE", "state changed"),
        ("s", "ROLLBACK", "COMPLETE", "Stack ROLLBACK completed successfully"),
    ]


def test_a_failed_delete(heat: Harness) -> None:
    stack_id = stack_of(heat, {"a": {"type": "Test::FailingDelete"}})
    assert heat.run(stack_id, Action.CREATE) == "CREATE_COMPLETE"
    assert heat.run(stack_id, Action.DELETE) == "DELETE_FAILED"
    reason = "Exception: resources.a: boom delete"
    assert heat.live(stack_id)["a"].status_reason == reason
    assert heat.events(stack_id)[-3:] == [
        ("a", "DELETE", "IN_PROGRESS", "state changed"),
        ("a", "DELETE", "FAILED", reason),
        ("s", "DELETE", "FAILED", f"Resource DELETE failed: {reason}"),
    ]


def test_a_failed_delete_in_a_child_stack(heat: Harness) -> None:
    files = {"child.yaml": child(type="Test::FailingDelete")}
    stack_id = stack_of(heat, {"child": {"type": "child.yaml"}}, files)
    assert heat.run(stack_id, Action.CREATE) == "CREATE_COMPLETE"
    assert heat.run(stack_id, Action.DELETE) == "DELETE_FAILED"
    reason = "Exception: resources.child.resources.inner: boom delete"
    assert heat.live(stack_id)["child"].status_reason == reason
    assert heat.reason(stack_id) == f"Resource DELETE failed: {reason}"


def test_a_failed_update_in_a_child_stack(heat: Harness) -> None:
    files = {"child.yaml": child(**res("x"))}
    stack_id = stack_of(heat, {"child": {"type": "child.yaml"}}, files)
    assert heat.run(stack_id, Action.CREATE) == "CREATE_COMPLETE"
    failing = json.dumps(child(**res("y", fail=True)))
    template_id = heat.store.store_raw_template(
        {"heat_template_version": HOT, "resources": {"child": {"type": "child.yaml"}}},
        {},
        {"child.yaml": failing},
    )
    assert heat.run(stack_id, Action.UPDATE, template_id) == "UPDATE_FAILED"
    reason = "ValueError: resources.child.resources.inner: Test Resource failed inner"
    assert heat.live(stack_id)["child"].status_reason == reason
    assert heat.reason(stack_id) == f"Resource UPDATE failed: {reason}"
    assert ("child", "UPDATE", "FAILED", reason) in heat.events(stack_id)


def test_a_failed_group_member_is_named_by_its_index(heat: Harness) -> None:
    group = {
        "type": "OS::Heat::ResourceGroup",
        "properties": {"count": 2, "resource_def": res(fail=True)},
    }
    stack_id = stack_of(heat, {"group": group})
    assert heat.run(stack_id, Action.CREATE) == "CREATE_FAILED"
    reason = heat.live(stack_id)["group"].status_reason
    pattern = r"ValueError: resources\.group\.resources\[([01])\]: Test Resource failed \1"
    assert re.fullmatch(pattern, reason), reason
    assert heat.reason(stack_id) == f"Resource CREATE failed: {reason}"
    (inner,) = [stack for stack in heat.store.list_stack_tree(stack_id) if stack.id != stack_id]
    member = reason.split("[")[1][0]
    assert heat.live(inner.id)[member].status_reason == (
        f"ValueError: resources[{member}]: Test Resource failed {member}"
    )


def test_check_of_a_suspended_stack_checks_what_can_be_checked(heat: Harness) -> None:
    stack_id = stack_of(heat, {"a": res(), "n": {"type": "OS::Heat::None"}})
    assert heat.run(stack_id, Action.CREATE) == "CREATE_COMPLETE"
    assert heat.run(stack_id, Action.SUSPEND) == "SUSPEND_COMPLETE"
    assert heat.run(stack_id, Action.CHECK) == "CHECK_COMPLETE"
    assert heat.reason(stack_id) == (
        "Stack CHECK completed successfully. 'CHECK' not fully supported (see resources)"
    )
    live = heat.live(stack_id)
    assert (live["a"].action, live["a"].status, live["a"].status_reason) == (
        "CHECK",
        "COMPLETE",
        "state changed",
    )
    assert live["n"].status_reason == "CHECK not supported for OS::Heat::None"
    events = heat.events(stack_id)
    checks = events[events.index(("s", "CHECK", "IN_PROGRESS", "Stack CHECK started")) :]
    # What cannot be checked records its outcome only, no IN_PROGRESS.
    assert [event for event in checks if event[0] == "n"] == [
        ("n", "CHECK", "COMPLETE", "CHECK not supported for OS::Heat::None")
    ]
    assert [event for event in checks if event[0] == "a"] == [
        ("a", "CHECK", "IN_PROGRESS", "state changed"),
        ("a", "CHECK", "COMPLETE", "state changed"),
    ]


def test_a_failed_check_that_could_not_check_everything_says_so(heat: Harness) -> None:
    stack_id = stack_of(heat, {"bad": res(fail=True), "n": {"type": "OS::Heat::None"}})
    assert heat.run(stack_id, Action.CREATE) == "CREATE_FAILED"
    assert heat.run(stack_id, Action.CHECK) == "CHECK_FAILED"
    assert heat.reason(stack_id) == (
        "Resource CHECK failed: bad: Resource CHECK failed: "
        "Exception: resources.bad: Resource not created. "
        "'CHECK' not fully supported (see resources)"
    )


def test_a_child_stack_of_checkable_resources_is_fully_checked(heat: Harness) -> None:
    stack_id = stack_of(heat, {"child": {"type": "child.yaml"}}, {"child.yaml": child(**res())})
    assert heat.run(stack_id, Action.CREATE) == "CREATE_COMPLETE"
    assert heat.run(stack_id, Action.CHECK) == "CHECK_COMPLETE"
    assert heat.reason(stack_id) == "Stack CHECK completed successfully"
    unchecked = {"child.yaml": child(type="OS::Heat::None")}
    other = stack_of(heat, {"child": {"type": "child.yaml"}}, unchecked, name="other")
    assert heat.run(other, Action.CREATE) == "CREATE_COMPLETE"
    assert heat.run(other, Action.CHECK) == "CHECK_COMPLETE"
    assert heat.reason(other).endswith(". 'CHECK' not fully supported (see resources)")


def test_an_update_past_the_deadline_names_the_task_with_its_physical_id(heat: Harness) -> None:
    stack_id = stack_of(heat, {"a": res("x")})
    assert heat.run(stack_id, Action.CREATE) == "CREATE_COMPLETE"
    physical = heat.live(stack_id)["a"].physical_resource_id
    slow = heat.template({"a": res("y", action_wait_secs={"update": 30})})
    heat.converge(stack_id, Action.UPDATE, slow, timeout_seconds=0.5)
    assert heat.wait(stack_id) == "UPDATE_FAILED"
    assert heat.reason(stack_id) == "Timed out"
    assert physical
    reason = (
        f'UPDATE aborted (Task update from TestResource "a" [{physical}] '
        f'Stack "s" [{stack_id}] Timed out)'
    )
    assert heat.live(stack_id)["a"].status_reason == reason
    assert ("a", "UPDATE", "FAILED", reason) in heat.events(stack_id)
