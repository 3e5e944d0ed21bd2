"""A ResourceGroup's ``batch_create`` and ``rolling_update``: Heat's batch arithmetic, and the
plugin driving its child batch by batch over an in-memory NestedStackServices."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.resources.nested_harness import NestedCtx
from thermik.errors import PluginError, PropertyError
from thermik.resources import PollAfter, Progress
from thermik.resources.group_batches import (
    BatchPolicy,
    batches,
    count_batches,
    next_batch,
    next_members,
)
from thermik.resources.group_templates import member_names
from thermik.resources.groups import ResourceGroup
from thermik.resources.nested_services import DEFAULT_FALLBACK_POLL as POLL
from thermik.resources.plugin import CheckResult, plan_update

GROUP = "OS::Heat::ResourceGroup"


def define(version: str) -> Any:
    return lambda name: {"type": "T", "properties": {"v": f"{version}{name}"}}


def versions(members: dict[str, Any]) -> dict[str, str]:
    """Member name -> the version of its definition (``old`` or ``new``)."""
    return {name: d["properties"]["v"].removesuffix(name) for name, d in members.items()}


# -- Heat's arithmetic --------------------------------------------------------------------------


def test_next_batch_follows_heats_rolling_update_arithmetic() -> None:
    # (target, current, up to date, batch size, min in service) -> (new size, new members)
    assert next_batch(4, 4, 0, BatchPolicy(2, 4)) == (6, 2)
    assert next_batch(4, 6, 2, BatchPolicy(2, 4)) == (6, 2)
    assert next_batch(4, 6, 4, BatchPolicy(2, 4)) == (4, 0)
    assert next_batch(4, 4, 0, BatchPolicy(1, 0)) == (4, 1)
    assert next_batch(5, 0, 0, BatchPolicy(2, 0)) == (2, 2)
    assert next_batch(2, 3, 0, BatchPolicy(1, 0)) == (2, 1)


def test_min_in_service_adds_extra_members_that_the_last_batch_removes() -> None:
    old = {name: define("old")(name) for name in "0123"}
    steps = [versions(b) for b in batches(old, (), 4, BatchPolicy(2, 4), define("new"))]
    assert steps == [
        {"0": "old", "1": "old", "2": "old", "3": "old", "4": "new", "5": "new"},
        {"0": "old", "1": "old", "2": "new", "3": "new", "4": "new", "5": "new"},
        {"0": "new", "1": "new", "2": "new", "3": "new", "4": "new", "5": "new"},
        {"0": "new", "1": "new", "2": "new", "3": "new"},
    ]


def test_without_min_in_service_the_highest_indices_are_updated_first() -> None:
    old = {name: define("old")(name) for name in "012"}
    steps = [versions(b) for b in batches(old, (), 3, BatchPolicy(1), define("new"))]
    assert steps == [
        {"0": "old", "1": "old", "2": "new"},
        {"0": "old", "1": "new", "2": "new"},
        {"0": "new", "1": "new", "2": "new"},
    ]


def test_a_batch_create_grows_the_group_in_index_order() -> None:
    steps = [list(b) for b in batches({}, (), 5, BatchPolicy(2), define("new"))]
    assert steps == [["0", "1"], ["0", "1", "2", "3"], ["0", "1", "2", "3", "4"]]


def test_removed_names_go_in_the_first_batch_and_are_never_reused() -> None:
    old = {name: define("old")(name) for name in "0123"}
    steps = [versions(b) for b in batches(old, {"1"}, 3, BatchPolicy(2), define("new"))]
    assert steps == [
        {"0": "old", "2": "new", "3": "new"},
        {"0": "new", "2": "new", "3": "new"},
    ]


def test_a_child_already_as_wanted_needs_no_batch() -> None:
    new = {name: define("new")(name) for name in "01"}
    assert next_members(new, (), 2, BatchPolicy(1), define("new")) is None


@pytest.mark.parametrize("min_in_service", [0, 1, 3, 8])
@pytest.mark.parametrize("batch_size", [1, 2, 5])
def test_every_start_ends_with_the_groups_members(batch_size: int, min_in_service: int) -> None:
    policy, new = BatchPolicy(batch_size, min_in_service), define("new")
    for target in range(6):
        for size in range(6):
            for done in range(size + 1):
                current = {
                    str(i): (new if i < done else define("old"))(str(i)) for i in range(size)
                }
                steps = list(batches(current, (), target, policy, new))
                assert len(steps) <= 2 * (target + size) + 1
                # Heat's count by sizes alone (the timeout check) agrees with the batches.
                assert count_batches(current, (), target, policy, new) == len(steps)
                final = steps[-1] if steps else current
                assert final == {name: new(name) for name in member_names(target, ())}


# -- the plugin ---------------------------------------------------------------------------------

MEMBER = {"type": "OS::Heat::TestResource", "properties": {"value": "v%index%"}}
CHANGED = {"type": "OS::Heat::TestResource", "properties": {"value": "w%index%"}}


def props(count: int, member: dict[str, Any] = MEMBER) -> dict[str, Any]:
    return ResourceGroup.check_properties({"count": count, "resource_def": member})


def values(ctx: NestedCtx) -> dict[str, str]:
    assert ctx.physical_id is not None
    members = ctx.nested.members(ctx.physical_id)
    return {name: m["properties"]["value"] for name, m in members.items()}


def progress_of(result: CheckResult, previous: Progress) -> Progress:
    return result.progress or previous if isinstance(result, PollAfter) else previous


def test_batch_create_grows_the_child_batch_by_batch_with_pauses() -> None:
    plugin, ctx = ResourceGroup(), NestedCtx(resource_type=GROUP, resource_name="g")
    ctx.nested.policy = {"batch_create": {"max_batch_size": 2, "pause_time": 10}}
    group = props(5)
    progress = plugin.create(ctx, group)
    assert isinstance(progress, Progress)
    assert values(ctx) == {"0": "v0", "1": "v1"}
    assert plugin.check_create_complete(ctx, group, progress) == PollAfter(POLL)
    ctx.nested.settle("child-1")
    # The batch ended: a pause (recorded in the progress), not the next batch yet.
    paused = plugin.check_create_complete(ctx, group, progress)
    assert isinstance(paused, PollAfter)
    assert paused.seconds == 10
    progress = progress_of(paused, progress)
    ctx.clock.advance(4)
    assert plugin.check_create_complete(ctx, group, progress) == PollAfter(6)
    assert values(ctx) == {"0": "v0", "1": "v1"}
    ctx.clock.advance(6)
    started = plugin.check_create_complete(ctx, group, progress)
    assert isinstance(started, PollAfter)
    assert started.seconds == POLL
    progress = progress_of(started, progress)
    assert values(ctx) == {"0": "v0", "1": "v1", "2": "v2", "3": "v3"}
    assert ctx.nested.calls == [("CREATE", "child-1"), ("UPDATE", "child-1")]
    ctx.nested.settle("child-1")
    progress = progress_of(plugin.check_create_complete(ctx, group, progress), progress)
    ctx.clock.advance(10)
    progress = progress_of(plugin.check_create_complete(ctx, group, progress), progress)
    assert list(values(ctx)) == ["0", "1", "2", "3", "4"]
    ctx.nested.settle("child-1")
    # No pause after the last batch.
    assert plugin.check_create_complete(ctx, group, progress) is True


def test_a_batch_in_progress_is_taken_up_from_its_progress_alone() -> None:
    """What a clean stop records is enough: a new plugin and context carry on."""
    plugin, ctx = ResourceGroup(), NestedCtx(resource_type=GROUP, resource_name="g")
    ctx.nested.policy = {"batch_create": {"max_batch_size": 1, "pause_time": 5}}
    group = props(3)
    first = plugin.create(ctx, group)
    assert first is not None
    ctx.nested.settle("child-1")
    paused = progress_of(plugin.check_create_complete(ctx, group, first), first)
    ctx.clock.advance(5)
    later = NestedCtx(
        resource_type=GROUP,
        resource_name="g",
        physical_id=ctx.physical_id,
        data=ctx.data,
        clock=ctx.clock,
        nested=ctx.nested,
    )
    running = progress_of(ResourceGroup().check_create_complete(later, group, paused), paused)
    assert list(values(later)) == ["0", "1"]
    assert running.state["action"] == "UPDATE"
    assert "pause_until" not in running.state


def updated_group(policy: dict[str, Any], count: int = 4) -> tuple[ResourceGroup, NestedCtx]:
    plugin, ctx = ResourceGroup(), NestedCtx(resource_type=GROUP, resource_name="g")
    progress = plugin.create(ctx, props(count))
    ctx.nested.settle("child-1")
    assert plugin.check_create_complete(ctx, props(count), progress) is True
    ctx.nested.policy = policy
    return plugin, ctx


def run_update(
    plugin: ResourceGroup, ctx: NestedCtx, old: dict[str, Any], new: dict[str, Any]
) -> list[dict[str, str]]:
    """Update to ``new``, settling each child update; the members after each batch."""
    plan = plan_update(plugin, ctx, new, old)
    progress = plugin.update(ctx, new, old, plan.changed)
    assert isinstance(progress, Progress)
    seen = [values(ctx)]
    for _ in range(20):
        ctx.nested.settle("child-1")
        result = plugin.check_update_complete(ctx, new, progress)
        if result is True:
            return seen
        progress = progress_of(result, progress)
        if isinstance(result, PollAfter) and "pause_until" in progress.state:
            ctx.clock.advance(result.seconds)
            continue
        seen.append(values(ctx))
    raise AssertionError("the update did not end")


def test_rolling_update_keeps_members_in_service() -> None:
    plugin, ctx = updated_group({"rolling_update": {"max_batch_size": 2, "min_in_service": 4}})
    seen = run_update(plugin, ctx, props(4), props(4, CHANGED))
    assert seen == [
        {"0": "v0", "1": "v1", "2": "v2", "3": "v3", "4": "w4", "5": "w5"},
        {"0": "v0", "1": "v1", "2": "w2", "3": "w3", "4": "w4", "5": "w5"},
        {"0": "w0", "1": "w1", "2": "w2", "3": "w3", "4": "w4", "5": "w5"},
        {"0": "w0", "1": "w1", "2": "w2", "3": "w3"},
    ]


def test_rolling_update_pauses_between_batches_only() -> None:
    plugin, ctx = updated_group({"rolling_update": {"pause_time": 30}}, count=2)
    start = ctx.clock.now()
    seen = run_update(plugin, ctx, props(2), props(2, CHANGED))
    assert seen == [{"0": "v0", "1": "w1"}, {"0": "w0", "1": "w1"}]
    assert ctx.clock.now() - start == 30


def test_an_update_that_changes_no_member_is_one_child_update() -> None:
    plugin, ctx = updated_group({"rolling_update": {"max_batch_size": 1, "pause_time": 30}})
    seen = run_update(plugin, ctx, props(4), props(6))
    assert seen == [{str(i): f"v{i}" for i in range(6)}]
    assert ctx.nested.calls == [("CREATE", "child-1"), ("UPDATE", "child-1")]


def test_an_update_run_again_after_a_failed_batch_carries_on_in_batches() -> None:
    plugin, ctx = updated_group({"rolling_update": {"max_batch_size": 1}}, count=3)
    new = props(3, CHANGED)
    progress = plugin.update(ctx, new, props(3), frozenset({"resource_def"}))
    assert progress is not None
    ctx.nested.settle("child-1", "FAILED", "member 2 failed")
    with pytest.raises(PluginError, match="member 2 failed"):
        plugin.check_update_complete(ctx, new, progress)
    # Nothing changed in the template: the next update still goes one member at a time.
    seen = run_update(plugin, ctx, new, new)
    assert seen == [{"0": "v0", "1": "w1", "2": "w2"}, {"0": "w0", "1": "w1", "2": "w2"}]


def test_a_bad_update_policy_fails_the_action_naming_its_path() -> None:
    plugin, ctx = ResourceGroup(), NestedCtx(resource_type=GROUP, resource_name="g")
    ctx.nested.policy = {"batch_create": {"max_batch_size": 0}}
    with pytest.raises(PropertyError, match=r"^resources\.g\.update_policy\.batch_create\.max"):
        plugin.create(ctx, props(2))
    assert ctx.nested.children == {}


def test_pauses_longer_than_the_stack_timeout_are_refused_as_in_heat() -> None:
    plugin, ctx = ResourceGroup(), NestedCtx(resource_type=GROUP, resource_name="g")
    ctx.nested.policy = {"batch_create": {"max_batch_size": 1, "pause_time": 60}}
    ctx.nested.timeout = 120
    with pytest.raises(PluginError, match="will result in stack update timeout"):
        plugin.create(ctx, props(3))
    assert ctx.nested.children == {}
    ctx.nested.timeout = 121
    assert plugin.create(ctx, props(3)) is not None
