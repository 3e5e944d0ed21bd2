"""Group types' member definitions are checked before anything is stored."""

from __future__ import annotations

from typing import Any

import pytest

from thermik.conf.settings import LimitSettings
from thermik.errors import PropertyError, ResourceTypeNotFound, TemplateTooLarge
from thermik.orchestration.checks import check_resources
from thermik.resources import Registry
from thermik.template import Environment, Template, build_stack

REGISTRY = Registry.from_entry_points()
MEMBER = """\
heat_template_version: 2018-08-31
parameters:
  size: {type: number}
resources:
  pw: {type: OS::Heat::RandomString, properties: {length: {get_param: size}}}
"""


def check(
    resource: dict[str, Any],
    *,
    limits: LimitSettings | None = None,
    registry: dict[str, str] | None = None,
) -> None:
    template = Template.from_document(
        {
            "heat_template_version": "2018-08-31",
            "parameters": {
                "n": {"type": "number", "default": 2},
                "zero": {"type": "number", "default": 0},
            },
            "resources": {"other": {"type": "OS::Heat::TestResource"}, "g": resource},
        },
        {"member.yaml": MEMBER},
    )
    environment = Environment.from_dict({"resource_registry": registry or {}})
    definition = build_stack(template, environment, None, known_types=REGISTRY.__contains__)
    check_resources(definition, REGISTRY, limits or LimitSettings())


def group(resource_def: Any, count: Any = 3) -> dict[str, Any]:
    return {
        "type": "OS::Heat::ResourceGroup",
        "properties": {"count": count, "resource_def": resource_def},
    }


def chain(types: list[Any], properties: Any = None) -> dict[str, Any]:
    return {
        "type": "OS::Heat::ResourceChain",
        "properties": {"resources": types, "resource_properties": properties},
    }


def test_a_valid_group_with_runtime_values_and_an_index_passes() -> None:
    value = {"list_join": ["-", [{"get_attr": ["other", "output"]}, "%index%"]]}
    check(group({"type": "OS::Heat::TestResource", "properties": {"value": value}}))
    check(group({"type": "OS::Heat::RandomString", "properties": {"length": {"get_param": "n"}}}))


def test_an_unknown_member_type_names_the_group_property() -> None:
    with pytest.raises(ResourceTypeNotFound) as info:
        check(group({"type": "OS::Nope"}))
    assert str(info.value) == (
        "resources.g.properties.resource_def.type: "
        "The Resource Type (OS::Nope) could not be found."
    )
    assert info.value.resource == "g"


def test_a_bad_member_property_names_the_group_property() -> None:
    with pytest.raises(PropertyError) as info:
        check(group({"type": "OS::Heat::RandomString", "properties": {"length": "long"}}))
    assert str(info.value).startswith("resources.g.properties.resource_def.properties.length")


def test_a_member_failing_its_own_checks_names_the_group_property() -> None:
    classes = [{"class": "digits", "min": 9}]
    properties = {"length": 3, "character_classes": classes}
    with pytest.raises(PropertyError) as info:
        check(group({"type": "OS::Heat::RandomString", "properties": properties}))
    assert str(info.value).startswith("resources.g.properties.resource_def")


def test_a_zero_count_disables_the_definition_as_in_heat() -> None:
    check(group({"type": "OS::Nope"}, count=0))


def test_a_bad_count_is_a_property_error() -> None:
    with pytest.raises(PropertyError, match=r"^resources\.g\.properties\.count"):
        check(group({"type": "OS::Heat::None"}, count=-1))
    with pytest.raises(PropertyError, match=r"^resources\.g\.properties\.count"):
        check(group({"type": "OS::Heat::None"}, count="many"))


def test_registry_aliases_and_template_members_are_followed() -> None:
    check(group({"type": "My::Thing"}), registry={"My::Thing": "OS::Heat::TestResource"})
    check(group({"type": "member.yaml", "properties": {"size": 8}}))
    with pytest.raises(PropertyError) as info:
        check(group({"type": "member.yaml", "properties": {"size": 0}}))
    assert str(info.value).startswith(
        "resources.g.properties.resource_def.type.resources.pw.properties.length"
    )
    with pytest.raises(PropertyError) as unknown:
        check(group({"type": "member.yaml", "properties": {"size": 8, "nope": 1}}))
    assert str(unknown.value).startswith("resources.g.properties.resource_def.properties")
    assert "nope" in str(unknown.value)


def test_members_count_towards_the_resource_limit_and_nesting_depth() -> None:
    definition = group({"type": "OS::Heat::TestResource"}, count=5)
    check(definition, limits=LimitSettings(max_resources_per_stack=7))
    with pytest.raises(TemplateTooLarge, match="7 resources"):
        check(definition, limits=LimitSettings(max_resources_per_stack=6))
    inner = group({"type": "OS::Heat::TestResource"})
    nested = group({"type": "OS::Heat::ResourceGroup", "properties": inner["properties"]})
    check(nested, limits=LimitSettings(max_nested_stack_depth=2))
    with pytest.raises(TemplateTooLarge, match="Recursion depth exceeds 1"):
        check(nested, limits=LimitSettings(max_nested_stack_depth=1))


def test_every_chain_member_is_checked() -> None:
    check(chain(["OS::Heat::TestResource", "OS::Heat::None"], {"value": "x"}))
    with pytest.raises(ResourceTypeNotFound) as info:
        check(chain(["OS::Heat::TestResource", "OS::Nope"]))
    assert str(info.value).startswith("resources.g.properties.resources[1]:")
    with pytest.raises(PropertyError) as error:
        check(chain(["OS::Heat::RandomString"], {"length": "long"}))
    assert str(error.value).startswith("resources.g.properties.resource_properties.length")
    with pytest.raises(PropertyError, match=r"resources\.g\.properties\.resources\[0\]"):
        check(chain([7]))


def with_policy(policy: Any) -> dict[str, Any]:
    return {**group({"type": "OS::Heat::TestResource"}), "update_policy": policy}


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        (
            {"rolling_update": {"max_batch_size": 0}},
            r"^resources\.g\.update_policy\.rolling_update\.max_batch_size: 0 is out of range",
        ),
        (
            {"rolling_update": {"min_in_service": -1}},
            r"^resources\.g\.update_policy\.rolling_update\.min_in_service: -1 is out of range",
        ),
        (
            {"batch_create": {"pause_time": "soon"}},
            r"^resources\.g\.update_policy\.batch_create\.pause_time: .*soon",
        ),
        (
            {"batch_create": {"min_in_service": 1}},
            r"^resources\.g\.update_policy\.batch_create: Unknown Property min_in_service",
        ),
        ({"rolling_updates": {}}, r"^resources\.g\.update_policy: Unknown Property rolling_upd"),
    ],
)
def test_a_bad_update_policy_is_refused_naming_its_path(policy: Any, message: str) -> None:
    with pytest.raises(PropertyError, match=message):
        check(with_policy(policy))


def test_a_valid_update_policy_with_parameters_passes() -> None:
    check(
        with_policy(
            {
                "rolling_update": {"max_batch_size": {"get_param": "n"}, "pause_time": "1.5"},
                "batch_create": {},
            }
        )
    )
    with pytest.raises(PropertyError, match=r"rolling_update\.max_batch_size: 0 is out"):
        check(with_policy({"rolling_update": {"max_batch_size": {"get_param": "zero"}}}))
