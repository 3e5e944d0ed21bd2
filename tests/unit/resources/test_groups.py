"""ResourceGroup and ResourceChain as plugins, driven over an in-memory NestedStackServices."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from tests.unit.resources.harness import Context
from tests.unit.resources.nested_harness import BatchMemoryNested, MemoryNested, NestedCtx
from thermik.errors import PluginError, PropertyError
from thermik.resources import Operation, PollAfter, Progress, ValidationContext
from thermik.resources.groups import ResourceChain, ResourceGroup
from thermik.resources.nested_group import member_attribute
from thermik.resources.nested_services import DEFAULT_FALLBACK_POLL as POLL_SECONDS
from thermik.resources.plugin import plan_update

GROUP = "OS::Heat::ResourceGroup"
MEMBER = {"type": "OS::Heat::TestResource", "properties": {"value": "v%index%"}}


def group_props(count: int, **extra: Any) -> dict[str, Any]:
    return ResourceGroup.check_properties({"count": count, "resource_def": MEMBER, **extra})


def created_group(
    count: int, *, services: MemoryNested | None = None, **extra: Any
) -> tuple[ResourceGroup, NestedCtx, dict[str, Any]]:
    plugin, ctx = (
        ResourceGroup(),
        NestedCtx(resource_type=GROUP, nested=services or MemoryNested()),
    )
    props = group_props(count, **extra)
    progress = plugin.create(ctx, props)
    assert ctx.physical_id is not None
    ctx.nested.settle(ctx.physical_id)
    assert plugin.check_create_complete(ctx, props, progress) is True
    return plugin, ctx, props


def updated(
    plugin: ResourceGroup, ctx: NestedCtx, old: dict[str, Any], new: dict[str, Any]
) -> None:
    plan = plan_update(plugin, ctx, new, old)
    assert plan.replacement is None
    progress = plugin.update(ctx, new, old, plan.changed)
    assert isinstance(progress, Progress)
    assert ctx.physical_id is not None
    assert plugin.check_update_complete(ctx, new, progress) == PollAfter(POLL_SECONDS)
    ctx.nested.settle(ctx.physical_id)
    assert plugin.check_update_complete(ctx, new, progress) is True


def test_create_stores_the_child_and_waits_for_it() -> None:
    plugin, ctx, props = ResourceGroup(), NestedCtx(resource_type=GROUP), group_props(3)
    progress = plugin.create(ctx, props)
    assert ctx.physical_id == "child-1"
    assert ctx.nested.members("child-1") == {
        "0": {"type": "OS::Heat::TestResource", "properties": {"value": "v0"}},
        "1": {"type": "OS::Heat::TestResource", "properties": {"value": "v1"}},
        "2": {"type": "OS::Heat::TestResource", "properties": {"value": "v2"}},
    }
    assert plugin.check_create_complete(ctx, props, progress) == PollAfter(POLL_SECONDS)
    ctx.nested.settle("child-1")
    assert plugin.check_create_complete(ctx, props, progress) is True
    assert plugin.reference_id(ctx, props) == "child-1"


def test_a_failed_child_fails_the_group_with_its_reason() -> None:
    plugin, ctx, props = ResourceGroup(), NestedCtx(resource_type=GROUP), group_props(2)
    progress = plugin.create(ctx, props)
    ctx.nested.settle("child-1", "FAILED", "resources[1]: Went to status error")
    with pytest.raises(PluginError, match=r"resources\[1\]: Went to status error"):
        plugin.check_create_complete(ctx, props, progress)


@pytest.mark.parametrize("services", [MemoryNested, BatchMemoryNested])
def test_attributes_follow_heats_group_semantics(services: type[MemoryNested]) -> None:
    plugin, ctx, props = created_group(3, services=services())

    def attr(name: str, *path: str | int) -> Any:
        return plugin.attribute(ctx, props, name, path)

    assert attr("refs") == ["child-1/0", "child-1/1", "child-1/2"]
    assert attr("refs", 1) == "child-1/1"
    assert attr("refs_map") == {"0": "child-1/0", "1": "child-1/1", "2": "child-1/2"}
    assert attr("attributes", "value") == {"0": "v0", "1": "v1", "2": "v2"}
    assert attr("attributes") is None
    assert attr("value") == ["v0", "v1", "v2"]
    assert attr("resource.1") == "child-1/1"
    assert attr("resource.1.value") == "v1"
    assert attr("resource.2", "value") == "v2"
    assert attr("resource.7") is None
    assert attr("no_such_attribute") == [None, None, None]
    assert attr("removed_rsrc_list") == []
    reads = len(ctx.nested.reads)
    attr("value")
    assert len(ctx.nested.reads) - reads == (1 if services is BatchMemoryNested else 3)


def test_attribute_paths_apply_to_each_member() -> None:
    definition = {"type": "T", "properties": {"info": {"name": "n%index%", "tags": ["a", "b"]}}}
    plugin, ctx, props = created_group(2, resource_def=definition)
    assert plugin.attribute(ctx, props, "info", ("name",)) == ["n0", "n1"]
    assert plugin.attribute(ctx, props, "attributes", ("info", "tags", 1)) == {"0": "b", "1": "b"}
    assert plugin.attribute(ctx, props, "resource.1.info", ("name",)) == "n1"


def test_attributes_before_the_child_exists_or_once_it_is_purged_are_null() -> None:
    ctx = NestedCtx(resource_type=GROUP)
    assert ResourceGroup().attribute(ctx, group_props(2), "refs") is None
    plugin, ctx, props = created_group(2)
    del ctx.nested.children["child-1"]
    assert plugin.attribute(ctx, props, "refs") is None


def test_a_purged_child_is_replaced_and_removal_entries_become_names() -> None:
    plugin, ctx, props = created_group(2)
    del ctx.nested.children["child-1"]
    new = group_props(2, removal_policies=[{"resource_list": ["0"]}])
    progress = plugin.update(ctx, new, props, frozenset({"removal_policies"}))
    assert isinstance(progress, Progress)
    assert ctx.physical_id == "child-2"
    assert list(ctx.nested.members("child-2")) == ["1", "2"]


class Listed:
    """Members whose references and attributes are computed from their names."""

    def references(self, names: Sequence[str]) -> dict[str, Any]:
        return {name: f"ref-{name}" for name in names}

    def attributes(self, names: Sequence[str], attribute: str, path: Any) -> dict[str, Any]:
        return {name: {"name": name, "attribute": attribute, "path": list(path)} for name in names}


def test_member_attribute_mapping_without_a_child() -> None:
    names = ["0", "2"]
    assert member_attribute(Listed(), names, "refs") == ["ref-0", "ref-2"]
    assert member_attribute(Listed(), names, "resource.2.a.b", ("c",)) == {
        "name": "2",
        "attribute": "a.b",
        "path": ["c"],
    }
    assert member_attribute(Listed(), names, "resource.1") is None
    assert member_attribute(Listed(), names, "x", (0,))[1] == {
        "name": "2",
        "attribute": "x",
        "path": [0],
    }


def test_scaling_up_then_down_with_a_removal_policy() -> None:
    plugin, ctx, three = created_group(3)
    five = group_props(5)
    updated(plugin, ctx, three, five)
    assert list(ctx.nested.members("child-1")) == ["0", "1", "2", "3", "4"]
    two = group_props(2, removal_policies=[{"resource_list": ["child-1/1", "3"]}])
    updated(plugin, ctx, five, two)
    assert ctx.nested.members("child-1") == {
        "0": {"type": "OS::Heat::TestResource", "properties": {"value": "v0"}},
        "2": {"type": "OS::Heat::TestResource", "properties": {"value": "v2"}},
    }
    assert plugin.attribute(ctx, two, "removed_rsrc_list") == ["1", "3"]
    assert plugin.attribute(ctx, two, "refs") == ["child-1/0", "child-1/2"]
    # Removed names are never reused, even when the policy is dropped.
    four = group_props(4)
    updated(plugin, ctx, two, four)
    assert list(ctx.nested.members("child-1")) == ["0", "2", "4", "5"]


def test_update_mode_replaces_the_removed_names() -> None:
    policy = [{"resource_list": ["1"]}]
    plugin, ctx, first = created_group(2, removal_policies=policy)
    assert list(ctx.nested.members("child-1")) == ["0", "2"]
    second = group_props(3, removal_policies=[], removal_policies_mode="update")
    updated(plugin, ctx, first, second)
    assert plugin.attribute(ctx, second, "removed_rsrc_list") == []
    assert list(ctx.nested.members("child-1")) == ["0", "1", "2"]


def test_changing_the_index_var_needs_replacement() -> None:
    plugin, ctx, props = created_group(1)
    plan = plan_update(plugin, ctx, group_props(1, index_var="$$$"), props)
    assert plan.replacement is not None


def test_delete_suspend_resume_check_snapshot_and_cancel_act_on_the_child() -> None:
    plugin, ctx, props = created_group(1)
    steps = [
        (plugin.suspend, plugin.check_suspend_complete, "SUSPEND"),
        (plugin.resume, plugin.check_resume_complete, "RESUME"),
        (plugin.check, plugin.check_check_complete, "CHECK"),
        (plugin.snapshot, plugin.check_snapshot_complete, "SNAPSHOT"),
        (plugin.delete, plugin.check_delete_complete, "DELETE"),
    ]
    for start, check, action in steps:
        progress = start(ctx, props)
        assert ctx.nested.calls[-1] == (action, "child-1")
        assert isinstance(check(ctx, props, progress), PollAfter)
        ctx.nested.settle("child-1")
        assert check(ctx, props, progress) is True
    plugin.cancel(ctx, props, Operation.UPDATE)
    assert ctx.nested.calls[-1] == ("CANCEL", "child-1")


def test_a_purged_or_never_created_child_counts_as_deleted() -> None:
    plugin, ctx, props = created_group(1)
    del ctx.nested.children["child-1"]
    assert plugin.check_delete_complete(ctx, props, plugin.delete(ctx, props)) is True
    fresh = NestedCtx(resource_type=GROUP)
    assert plugin.check_delete_complete(fresh, props, plugin.delete(fresh, props)) is True


def test_without_nested_services_the_error_names_the_resource() -> None:
    ctx = Context(resource_name="g", resource_type=GROUP)
    with pytest.raises(PluginError, match="nested stacks are not available") as info:
        ResourceGroup().create(ctx, group_props(1))
    assert info.value.resource == "g"


CHAIN_TYPES = ["OS::Heat::TestResource", "OS::Heat::TestResource", "OS::Heat::TestResource"]


def test_chain_members_run_in_order_and_expose_refs_and_attributes() -> None:
    props = ResourceChain.check_properties(
        {"resources": CHAIN_TYPES, "resource_properties": {"value": "x"}}
    )
    plugin, ctx = ResourceChain(), NestedCtx(resource_type="OS::Heat::ResourceChain")
    progress = plugin.create(ctx, props)
    members = ctx.nested.members("child-1")
    assert [m.get("depends_on") for m in members.values()] == [None, ["0"], ["1"]]
    ctx.nested.settle("child-1")
    assert plugin.check_create_complete(ctx, props, progress) is True
    assert plugin.attribute(ctx, props, "refs") == ["child-1/0", "child-1/1", "child-1/2"]
    assert plugin.attribute(ctx, props, "attributes", ("value",)) == {
        "0": "x",
        "1": "x",
        "2": "x",
    }
    assert plugin.attribute(ctx, props, "resource.0.value") == "x"
    assert plugin.attribute(ctx, props, "value") == ["x", "x", "x"]


def test_chain_rejects_a_member_type_that_is_not_a_name() -> None:
    props = ResourceChain.check_properties({"resources": ["OS::Heat::None", 3]})
    with pytest.raises(PropertyError) as info:
        ResourceChain().validate(props, ValidationContext())
    assert info.value.path == ("properties", "resources", 1)
