"""The scaling group's pure parts: a scaling signal's data, the members' child template."""

from __future__ import annotations

from typing import Any

import pytest

from thermik.errors import InvalidSignal
from thermik.resources.autoscaling.capacity import Adjustment, adjustment_of
from thermik.resources.autoscaling.group import AutoScalingGroup, member

PROPS: dict[str, Any] = {
    "min_size": 1,
    "max_size": 5,
    "resource": {"type": "OS::Heat::TestResource", "properties": {"value": "x"}, "metadata": None},
}


def test_a_signal_names_its_adjustment() -> None:
    assert adjustment_of({"adjustment": 2}) == Adjustment(2.0)
    assert adjustment_of(
        {"adjustment": 50, "adjustment_type": "PercentChangeInCapacity", "min_adjustment_step": 2}
    ) == Adjustment(50.0, "percent_change_in_capacity", 2)
    assert adjustment_of(
        {"adjustment": 3, "adjustment_type": "exact_capacity", "cooldown": 10}
    ) == Adjustment(3.0, "exact_capacity", cooldown=10.0)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        (None, "adjustment"),
        ({}, "adjustment"),
        ({"adjustment": "two"}, "adjustment"),
        ({"adjustment": True}, "adjustment"),
        ({"adjustment": 1, "adjustment_type": "double"}, "adjustment_type"),
        ({"adjustment": 1, "cooldown": "soon"}, "cooldown"),
        ({"adjustment": 1, "min_adjustment_step": [1]}, "min_adjustment_step"),
    ],
)
def test_a_malformed_signal_names_the_field(data: Any, field: str) -> None:
    with pytest.raises(InvalidSignal) as error:
        adjustment_of(data)
    assert field in str(error.value)


def test_members_are_the_resource_definition_under_indices() -> None:
    assert member(PROPS["resource"]) == {
        "type": "OS::Heat::TestResource",
        "properties": {"value": "x"},
    }
    template = AutoScalingGroup().template(PROPS, 3)
    assert list(template["resources"]) == ["0", "1", "2"]
    assert all(m == member(PROPS["resource"]) for m in template["resources"].values())
    assert AutoScalingGroup().template(PROPS, 0)["resources"] == {}


def test_rolling_updates_is_the_batch_policy_of_updates_only() -> None:
    group = AutoScalingGroup()
    props = {
        **PROPS,
        "rolling_updates": {"max_batch_size": 2, "min_in_service": 1, "pause_time": 0},
    }
    policy = group.batch_policy(None, props, "rolling_update")  # type: ignore[arg-type]
    assert policy is not None
    assert (policy.max_batch_size, policy.min_in_service) == (2, 1)
    assert group.batch_policy(None, props, "batch_create") is None  # type: ignore[arg-type]
