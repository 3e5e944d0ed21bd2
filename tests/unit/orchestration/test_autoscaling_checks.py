"""AutoScalingGroup and ScalingPolicy definitions are checked before anything is stored, with
errors that name the property; a group's member definition is checked like any group's."""

from __future__ import annotations

from typing import Any

import pytest

from thermik.conf.settings import LimitSettings
from thermik.errors import PropertyError, ResourceTypeNotFound
from thermik.orchestration.checks import check_resources
from thermik.resources import Registry
from thermik.template import Environment, Template, build_stack

REGISTRY = Registry.from_entry_points()


def check(resources: dict[str, Any]) -> None:
    template = Template.from_document(
        {
            "heat_template_version": "2018-08-31",
            "parameters": {"n": {"type": "number", "default": 2}},
            "resources": resources,
        }
    )
    environment = Environment.from_dict({})
    definition = build_stack(template, environment, None, known_types=REGISTRY.__contains__)
    check_resources(definition, REGISTRY, LimitSettings())


def group(**props: Any) -> dict[str, Any]:
    properties = {
        "min_size": 1,
        "max_size": 4,
        "resource": {"type": "OS::Heat::RandomString", "properties": {"length": 8}},
        **props,
    }
    return {"type": "OS::Heat::AutoScalingGroup", "properties": properties}


def policy(**props: Any) -> dict[str, Any]:
    properties = {
        "auto_scaling_group_id": {"get_resource": "g"},
        "adjustment_type": "change_in_capacity",
        "scaling_adjustment": 1,
        **props,
    }
    return {"type": "OS::Heat::ScalingPolicy", "properties": properties}


def test_a_group_and_its_policies_check() -> None:
    check(
        {
            "g": group(desired_capacity={"get_param": "n"}, cooldown=60),
            "up": policy(cooldown=30),
            "pct": policy(adjustment_type="percent_change_in_capacity", min_adjustment_step=2),
        }
    )


@pytest.mark.parametrize(
    ("props", "message", "where"),
    [
        ({"min_size": 5}, "min_size can not be greater than max_size", "min_size"),
        ({"desired_capacity": 9}, "desired_capacity must be between", "desired_capacity"),
        ({"max_size": -1}, "", "max_size"),
        ({"rolling_updates": {"max_batch_size": 0}}, "", "rolling_updates"),
    ],
)
def test_bad_group_properties_are_named(props: dict[str, Any], message: str, where: str) -> None:
    with pytest.raises(PropertyError) as error:
        check({"g": group(**props)})
    assert message in str(error.value)
    assert where in str(error.value)
    assert "resources.g" in str(error.value)


def test_a_member_of_an_unknown_type_is_refused() -> None:
    with pytest.raises(ResourceTypeNotFound) as error:
        check({"g": group(resource={"type": "OS::No::Such"})})
    assert "OS::No::Such" in str(error.value)


def test_a_member_with_a_bad_property_is_refused_at_its_path() -> None:
    with pytest.raises(PropertyError) as error:
        check({"g": group(resource={"type": "OS::Heat::RandomString", "properties": {"x": 1}})})
    assert "resources.g.properties.resource.properties" in str(error.value)


def test_min_adjustment_step_needs_a_percentage() -> None:
    with pytest.raises(PropertyError) as error:
        check({"g": group(), "p": policy(min_adjustment_step=1)})
    assert "percent_change_in_capacity" in str(error.value)
    assert "resources.p.properties.min_adjustment_step" in str(error.value)


def test_an_unknown_adjustment_type_is_refused() -> None:
    with pytest.raises(PropertyError) as error:
        check({"g": group(), "p": policy(adjustment_type="double")})
    assert "adjustment_type" in str(error.value)
