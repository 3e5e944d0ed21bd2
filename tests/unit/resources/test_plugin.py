"""The contract's defaults and the update decision, driven through a small real plugin."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from tests.unit.resources.harness import Context
from thermik.errors import PropertyError
from thermik.resources import (
    AttributeSchema,
    NeedsReplacement,
    Operation,
    Progress,
    PropertySchema,
    Props,
    ResourceContext,
    ResourcePlugin,
    Type,
    changed_properties,
    physical_resource_name,
    plan_update,
    select_path,
)


class Widget(ResourcePlugin):
    """A plugin exercising the defaults: one mutable, one fixed, one immutable property."""

    properties_schema: ClassVar = {
        "size": PropertySchema(Type.INTEGER, default=1, update_allowed=True),
        "colour": PropertySchema(Type.STRING),
        "serial": PropertySchema(Type.STRING, immutable=True),
    }
    attributes_schema: ClassVar = {"info": AttributeSchema("Details.")}

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        ctx.set_physical_id("w-1")
        return None

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        return {"sizes": [props["size"], props["size"] * 2]} if name == "info" else None


def test_defaults_complete_at_once_and_do_nothing() -> None:
    ctx, widget = Context(), Widget()
    props = Widget.check_properties({"size": "3"})
    assert widget.create(ctx, props) is None
    for start, done in [
        (widget.delete, widget.check_delete_complete),
        (widget.suspend, widget.check_suspend_complete),
        (widget.resume, widget.check_resume_complete),
        (widget.check, widget.check_check_complete),
        (widget.snapshot, widget.check_snapshot_complete),
    ]:
        progress = start(ctx, props)
        assert progress is None
        assert done(ctx, props, progress) is True
    assert widget.restore(ctx, props, {}) is None
    assert widget.check_restore_complete(ctx, props, None) is True
    assert widget.handle_signal(ctx, props, {"a": 1}) is None
    widget.cancel(ctx, props, Operation.CREATE)


def test_reference_id_is_physical_id_else_name() -> None:
    ctx, widget = Context(resource_name="w"), Widget()
    assert widget.reference_id(ctx, {}) == "w"
    widget.create(ctx, {})
    assert widget.reference_id(ctx, {}) == "w-1"


def test_attributes_follow_their_path() -> None:
    ctx, widget = Context(), Widget()
    props = Widget.check_properties({"size": 2})
    assert widget.attribute(ctx, props, "info") == {"sizes": [2, 4]}
    assert widget.attribute(ctx, props, "info", ["sizes", 1]) == 4
    assert widget.attribute(ctx, props, "info", ["sizes", 7]) is None
    assert widget.attribute(ctx, props, "info", ["nope", "deeper"]) is None


def test_has_attribute_knows_the_schema_and_show() -> None:
    assert Widget.has_attribute("info")
    assert Widget.has_attribute("show")
    assert not Widget.has_attribute("other")


@pytest.mark.parametrize(
    ("value", "path", "expected"),
    [
        ({"a": [1, {"b": 2}]}, ["a", 1, "b"], 2),
        ([1, 2, 3], [-1], 3),
        ([1, 2], ["x"], None),
        ("text", [0], None),
        (None, ["a"], None),
        ({"a": 1}, [], {"a": 1}),
    ],
)
def test_select_path(value: Any, path: list[str | int], expected: Any) -> None:
    assert select_path(value, path) == expected


def test_changed_properties_compares_values() -> None:
    assert changed_properties({"a": 1, "b": 2}, {"a": 1, "b": 3, "c": None}) == {"b"}


def test_plan_update_in_place_when_only_mutable_properties_change() -> None:
    ctx, widget = Context(resource_type="My::Widget"), Widget()
    old = Widget.check_properties({"size": 1, "colour": "red"})
    new = Widget.check_properties({"size": 2, "colour": "red"})
    plan = plan_update(widget, ctx, new, old)
    assert plan.changed == {"size"}
    assert plan.replacement is None


def test_plan_update_replaces_on_fixed_properties() -> None:
    ctx, widget = Context(), Widget()
    old = Widget.check_properties({"colour": "red"})
    new = Widget.check_properties({"colour": "blue", "size": 5})
    plan = plan_update(widget, ctx, new, old)
    assert plan.replacement == NeedsReplacement("update of colour needs replacement")


def test_plan_update_refuses_immutable_changes() -> None:
    ctx, widget = Context(resource_name="w", resource_type="My::Widget"), Widget()
    old = Widget.check_properties({"serial": "1"})
    new = Widget.check_properties({"serial": "2"})
    with pytest.raises(PropertyError) as info:
        plan_update(widget, ctx, new, old)
    assert str(info.value) == (
        "resources.w.properties: Update to properties serial of w (My::Widget) is not supported"
    )


def test_physical_resource_name_is_unique_and_bounded() -> None:
    ctx = Context(resource_name="server")
    name = physical_resource_name(ctx)
    assert name.startswith("teststack-server-")
    assert len(name.rsplit("-", 1)[1]) == 12
    assert physical_resource_name(ctx) != name
    long = Context(resource_name="r" * 300)
    assert len(physical_resource_name(long)) == 255
