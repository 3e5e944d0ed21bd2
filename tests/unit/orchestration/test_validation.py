"""Stack-level resource validation: types exist, known property values fit their schemas."""

from __future__ import annotations

import pytest

from thermik import errors
from thermik.orchestration.validation import known_types, validate_resources
from thermik.resources.registry import Registry
from thermik.template import Template, build_stack
from thermik.template.context import Identity

REGISTRY = Registry.from_entry_points()


def stack_of(text: str, params: dict[str, object] | None = None) -> object:
    template = Template.load(text, {})
    return build_stack(
        template, None, params or {}, Identity(stack_name="s"), known_types=known_types(REGISTRY)
    )


def validate(text: str, params: dict[str, object] | None = None) -> None:
    validate_resources(stack_of(text, params), REGISTRY)  # type: ignore[arg-type]


HEADER = "heat_template_version: 2018-08-31\n"


def test_valid_stack_passes() -> None:
    validate(
        HEADER
        + """
parameters:
  n: {type: number, default: 6}
resources:
  r:
    type: OS::Heat::RandomString
    properties: {length: {get_param: n}}
  v:
    type: OS::Heat::Value
    properties: {value: {get_attr: [r, value]}}
"""
    )


def test_unknown_type_names_the_resource() -> None:
    with pytest.raises(errors.ResourceTypeNotFound) as caught:
        stack_of(HEADER + "resources:\n  web:\n    type: OS::Nova::NoSuchType\n")
    assert "resources.web" in str(caught.value)


def test_bad_property_from_a_parameter_names_the_property() -> None:
    text = (
        HEADER
        + "parameters:\n  n: {type: string, default: abc}\n"
        + "resources:\n  r:\n    type: OS::Heat::RandomString\n"
        + "    properties: {length: {get_param: n}}\n"
    )
    with pytest.raises(errors.PropertyError) as caught:
        validate(text)
    assert str(caught.value).startswith("resources.r.properties.length:")


def test_unknown_property_is_rejected() -> None:
    text = (
        HEADER
        + "resources:\n  r:\n    type: OS::Heat::RandomString\n    properties: {lenght: 3}\n"
    )
    with pytest.raises(errors.PropertyError) as caught:
        validate(text)
    assert "resources.r.properties" in str(caught.value)
    assert "lenght" in str(caught.value)


def test_runtime_values_are_left_for_later() -> None:
    text = (
        HEADER
        + "resources:\n  a:\n    type: OS::Heat::Value\n    properties: {value: x}\n"
        + "  r:\n    type: OS::Heat::RandomString\n"
        + "    properties: {length: {get_attr: [a, value]}}\n"
    )
    validate(text)
