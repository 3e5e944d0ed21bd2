"""OS::Heat::None, Value and Delay driven through the contract."""

from __future__ import annotations

import uuid

import pytest

from tests.unit.resources.harness import Context, drive
from thermik.errors import PropertyError
from thermik.resources import PollAfter, ValidationContext, plan_update
from thermik.resources.heat_basic import Delay, NoneResource, Value


def test_none_accepts_anything_and_never_changes() -> None:
    ctx, plugin = Context(resource_type="OS::Heat::None"), NoneResource()
    props = NoneResource.check_properties({"image": "x", "flavor": {"a": 1}})
    assert props == {}
    assert plugin.create(ctx, props) is None
    assert uuid.UUID(ctx.physical_id or "").version == 4
    assert NoneResource.has_attribute("anything")
    assert plugin.attribute(ctx, props, "anything", ["deep"]) is None
    assert plan_update(plugin, ctx, {"a": 2}, {"a": 1}).replacement is None


def test_none_physical_id_is_deterministic_with_a_seeded_source() -> None:
    first, second = Context(), Context()
    NoneResource().create(first, {})
    NoneResource().create(second, {})
    assert first.physical_id == second.physical_id


# As real Heat 27 answers: the value is checked against the type and returned as written
# (type number with "42" gives "42", type string with 42 gives 42, boolean "true" gives "true").
@pytest.mark.parametrize(
    ("value_type", "raw", "expected"),
    [
        (None, {"any": ["thing"]}, {"any": ["thing"]}),
        ("string", 12, 12),
        ("number", "1.5", "1.5"),
        ("number", "42", "42"),
        ("comma_delimited_list", ["a", "b"], ["a", "b"]),
        ("json", {"a": 1}, {"a": 1}),
        ("boolean", "True", "True"),
        ("boolean", "true", "true"),
    ],
)
def test_value_is_checked_against_its_type(
    value_type: str | None, raw: object, expected: object
) -> None:
    values = {"value": raw} if value_type is None else {"value": raw, "type": value_type}
    props = Value.check_properties(values)
    ctx, plugin = Context(resource_name="v", resource_type="OS::Heat::Value"), Value()
    plugin.create(ctx, props)
    assert plugin.attribute(ctx, props, "value") == expected
    assert (ctx.physical_id or "").startswith("teststack-v-")


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({}, "resources.v.properties: Property value not assigned"),
        (
            {"value": 1, "type": "int"},
            'resources.v.properties.type: "int" is not an allowed value ["string", "number", '
            '"comma_delimited_list", "json", "boolean"]',
        ),
        (
            {"value": "x", "type": "number"},
            "resources.v.properties.value: Value 'x' is not a number",
        ),
        ({"value": [1], "type": "json"}, 'resources.v.properties.value: "[1]" is not a map'),
        (
            {"value": '{"a": 1}', "type": "json"},
            'resources.v.properties.value: "{"a": 1}" is not a map',
        ),
        (
            {"value": "yes", "type": "boolean"},
            'resources.v.properties.value: "yes" is not a valid boolean',
        ),
        (
            {"value": {"a": 1}, "type": "string"},
            "resources.v.properties.value: Value must be a string; got {'a': 1}",
        ),
    ],
)
def test_value_errors(values: dict[str, object], message: str) -> None:
    with pytest.raises(PropertyError) as info:
        Value.check_properties(values, path=("resources", "v", "properties"))
    assert str(info.value) == message


def test_value_updates_in_place() -> None:
    ctx, plugin = Context(), Value()
    old = Value.check_properties({"value": 1})
    new = Value.check_properties({"value": 2, "type": "number"})
    assert plan_update(plugin, ctx, new, old).replacement is None


def test_delay_waits_min_wait_on_create_by_polling_the_clock() -> None:
    ctx, plugin = Context(resource_type="OS::Heat::Delay"), Delay()
    props = Delay.check_properties({"min_wait": 10})
    progress = plugin.create(ctx, props)
    first = plugin.check_create_complete(ctx, props, progress)
    assert first == PollAfter(10)
    polls, waited = drive(
        lambda p: plugin.check_create_complete(ctx, props, p), progress, ctx.clock
    )
    assert waited == 10
    assert polls == 2


def test_delay_adds_seeded_jitter_only_during_chosen_actions() -> None:
    ctx, plugin = Context(), Delay()
    props = Delay.check_properties(
        {"min_wait": 1, "max_jitter": 2, "jitter_multiplier": 3, "actions": ["DELETE"]}
    )
    assert plugin.check_create_complete(ctx, props, plugin.create(ctx, props)) is True
    progress = plugin.delete(ctx, props)
    assert progress is not None
    wait = progress.state["wait"]
    assert 1 <= wait <= 7
    assert wait == 1 + 6 * Context().random.random()
    _, waited = drive(lambda p: plugin.check_delete_complete(ctx, props, p), progress, ctx.clock)
    assert waited == pytest.approx(wait)


@pytest.mark.parametrize("action", ["SUSPEND", "RESUME"])
def test_delay_on_suspend_and_resume(action: str) -> None:
    ctx, plugin = Context(), Delay()
    props = Delay.check_properties({"min_wait": 5, "actions": [action]})
    start, check = (
        (plugin.suspend, plugin.check_suspend_complete)
        if action == "SUSPEND"
        else (plugin.resume, plugin.check_resume_complete)
    )
    progress = start(ctx, props)
    _, waited = drive(lambda p: check(ctx, props, p), progress, ctx.clock)
    assert waited == 5


def test_delay_must_fit_in_the_stack_timeout() -> None:
    plugin = Delay()
    props = Delay.check_properties({"min_wait": 50, "max_jitter": 20})
    plugin.validate(props, ValidationContext(stack_timeout=100))
    plugin.validate(props, ValidationContext(stack_timeout=60, strict=False))
    with pytest.raises(PropertyError) as info:
        plugin.validate(props, ValidationContext(stack_timeout=60))
    assert str(info.value) == "OS::Heat::Delay maximum delay 70.0s exceeds stack timeout."


def test_delay_rejects_unknown_actions() -> None:
    with pytest.raises(PropertyError, match="is not an allowed value"):
        Delay.check_properties({"actions": ["UPDATE"]})
