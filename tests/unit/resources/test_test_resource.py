"""OS::Heat::TestResource: value, fail, update_replace and waits polled against the clock."""

from __future__ import annotations

import pytest

from tests.unit.resources.harness import Context, drive
from thermik.errors import PluginError
from thermik.resources import NeedsReplacement, PollAfter, plan_update
from thermik.resources.test_resource import TestResource


def props(**values: object) -> dict[str, object]:
    return TestResource.check_properties(values)


def test_create_stores_value_and_completes_at_once() -> None:
    ctx, plugin = Context(resource_name="t"), TestResource()
    p = props(value="hello")
    progress = plugin.create(ctx, p)
    assert plugin.check_create_complete(ctx, p, progress) is True
    assert plugin.attribute(ctx, p, "output") == "hello"
    assert plugin.reference_id(ctx, p) == ctx.physical_id
    assert (ctx.physical_id or "").startswith("teststack-t-")


def test_wait_secs_is_polled_not_slept() -> None:
    ctx, plugin = Context(), TestResource()
    p = props(wait_secs=30)
    progress = plugin.create(ctx, p)
    assert plugin.check_create_complete(ctx, p, progress) == PollAfter(30)
    ctx.clock.advance(29.5)
    assert plugin.check_create_complete(ctx, p, progress) == PollAfter(0.5)
    _, waited = drive(lambda pr: plugin.check_create_complete(ctx, p, pr), progress, ctx.clock)
    assert waited == 0.5
    assert ctx.clock.slept == []


def test_action_wait_secs_override_per_action() -> None:
    ctx, plugin = Context(), TestResource()
    p = props(wait_secs=5, action_wait_secs={"create": 1, "delete": 7})
    _, waited = drive(
        lambda pr: plugin.check_create_complete(ctx, p, pr), plugin.create(ctx, p), ctx.clock
    )
    assert waited == 1
    _, waited = drive(
        lambda pr: plugin.check_delete_complete(ctx, p, pr), plugin.delete(ctx, p), ctx.clock
    )
    assert waited == 7


def test_infinite_wait_never_completes() -> None:
    ctx, plugin = Context(), TestResource()
    p = props(wait_secs=-1)
    progress = plugin.create(ctx, p)
    for _ in range(3):
        ctx.clock.advance(10_000)
        assert isinstance(plugin.check_create_complete(ctx, p, progress), PollAfter)


def test_fail_fails_create_after_the_wait_without_storing() -> None:
    ctx, plugin = Context(resource_name="t"), TestResource()
    p = props(fail=True, wait_secs=2)
    progress = plugin.create(ctx, p)
    assert ctx.physical_id is None
    assert ctx.data.as_dict() == {}
    assert plugin.check_create_complete(ctx, p, progress) == PollAfter(2)
    ctx.clock.advance(2)
    with pytest.raises(PluginError, match=r"^Test Resource failed t$"):
        plugin.check_create_complete(ctx, p, progress)


def test_delete_never_fails() -> None:
    ctx, plugin = Context(), TestResource()
    p = props(fail=True)
    assert plugin.check_delete_complete(ctx, p, plugin.delete(ctx, p)) is True


def test_update_in_place_stores_the_new_value() -> None:
    ctx, plugin = Context(), TestResource()
    old, new = props(value="a"), props(value="b", wait_secs=3)
    plugin.create(ctx, old)
    plan = plan_update(plugin, ctx, new, old)
    assert plan.replacement is None
    progress = plugin.update(ctx, new, old, plan.changed)
    assert not isinstance(progress, NeedsReplacement)
    _, waited = drive(lambda pr: plugin.check_update_complete(ctx, new, pr), progress, ctx.clock)
    assert waited == 3
    assert plugin.attribute(ctx, new, "output") == "b"


def test_update_with_fail_fails_even_without_value_change() -> None:
    ctx, plugin = Context(), TestResource()
    old, new = props(value="a"), props(value="a", fail=True)
    plugin.create(ctx, old)
    progress = plugin.update(ctx, new, old, plan_update(plugin, ctx, new, old).changed)
    assert not isinstance(progress, NeedsReplacement)
    with pytest.raises(PluginError, match="Test Resource failed"):
        plugin.check_update_complete(ctx, new, progress)
    assert plugin.attribute(ctx, new, "output") == "a"


def test_update_replace_asks_for_replacement_when_value_changes() -> None:
    ctx, plugin = Context(), TestResource()
    old = props(value="a", update_replace=True)
    assert plan_update(plugin, ctx, props(value="b", update_replace=True), old).replacement == (
        NeedsReplacement("update_replace is set")
    )
    changed_other = props(value="a", update_replace=True, wait_secs=1)
    assert plan_update(plugin, ctx, changed_other, old).replacement is None


def test_update_replace_value_can_only_change_by_replacement() -> None:
    ctx, plugin = Context(), TestResource()
    plan = plan_update(
        plugin, ctx, props(update_replace_value="2"), props(update_replace_value="1")
    )
    assert plan.replacement == NeedsReplacement("update of update_replace_value needs replacement")


def test_check_fails_when_never_created() -> None:
    ctx, plugin = Context(), TestResource()
    with pytest.raises(PluginError, match="Resource not created"):
        plugin.check(ctx, props())
    plugin.create(ctx, props())
    assert plugin.check(ctx, props()) is None


def test_attr_wait_secs_waits_on_the_context_clock() -> None:
    ctx, plugin = Context(), TestResource()
    p = props(value="v", attr_wait_secs=4)
    plugin.create(ctx, p)
    assert plugin.attribute(ctx, p, "output") == "v"
    assert ctx.clock.slept == [4]
