"""Constraints: Heat's messages, descriptions, and their own sanity checks."""

from __future__ import annotations

from typing import Any

import pytest

from thermik.errors import PluginError
from thermik.resources import (
    AllowedPattern,
    AllowedValues,
    Constraint,
    CustomConstraint,
    Length,
    Modulo,
    Range,
)


@pytest.mark.parametrize(
    ("constraint", "type_name", "value", "message"),
    [
        (Range(1, 512), "Integer", 0, "0 is out of range (min: 1, max: 512)"),
        (Range(min=0), "Number", -0.5, "-0.5 is out of range (min: 0, max: None)"),
        (Length(min=3), "String", "ab", "length (2) is out of range (min: 3, max: None)"),
        (Length(max=1), "List", [1, 2], "length (2) is out of range (min: None, max: 1)"),
        (Modulo(2, 1), "Integer", 4, "4 is not a multiple of 2 with an offset of 1"),
        (AllowedValues((1, 2)), "Integer", 3, "3 is not an allowed value [1, 2]"),
        (
            AllowedValues(("a", "b")),
            "List",
            ["a", "c"],
            '["a", "c"] is not an allowed value ["a", "b"]',
        ),
        (AllowedPattern("[a-z]+"), "String", "AB", '"AB" does not match pattern "[a-z]+"'),
    ],
)
def test_messages_match_heat(
    constraint: Constraint, type_name: str, value: Any, message: str
) -> None:
    assert constraint.check(value, type_name, None) == message


@pytest.mark.parametrize(
    ("constraint", "type_name", "value"),
    [
        (Range(1, 5), "Integer", 5),
        (Length(2, 2), "Map", {"a": 1, "b": 2}),
        (Modulo(2, 1), "Integer", 7),
        (Modulo(-3, -1), "Integer", -4),
        (AllowedValues((1, 2)), "Integer", 2),
        (AllowedValues((True,)), "Boolean", True),
        (AllowedValues(("1", "2")), "Integer", 2),
        (AllowedPattern("[a-z]+"), "String", "abc"),
    ],
)
def test_valid_values_pass(constraint: Constraint, type_name: str, value: Any) -> None:
    assert constraint.check(value, type_name, None) is None


def test_description_replaces_the_message() -> None:
    assert Length(min=2, description="too short!").check("a", "String", None) == "too short!"
    assert Length(min=2, description="too short!").check("ab", "String", None) is None


def test_pattern_must_span_the_value_via_the_first_match() -> None:
    # Heat takes re.match's first match; "a|ab" matches "a" first and so rejects "ab".
    assert AllowedPattern("a|ab").check("ab", "String", None) is not None
    assert AllowedPattern("ab|a").check("ab", "String", None) is None


def test_custom_constraint_without_validator_accepts() -> None:
    assert CustomConstraint("glance.image").check("x", "String", {}) is None
    rejecting = {"glance.image": lambda v: "No image"}
    assert CustomConstraint("glance.image").check("x", "String", rejecting) == (
        "Error validating value 'x': No image"
    )


@pytest.mark.parametrize(
    "build",
    [
        Range,
        Length,
        lambda: Modulo(0, 0),
        lambda: Modulo(2, 3),
        lambda: Modulo(2, -1),
        lambda: AllowedPattern("("),
    ],
)
def test_malformed_constraints_are_plugin_errors(build: Any) -> None:
    with pytest.raises(PluginError):
        build()


def test_as_dict_is_the_hot_constraint_syntax() -> None:
    assert Range(1, 5, description="d").as_dict() == {
        "range": {"min": 1, "max": 5},
        "description": "d",
    }
    assert Length(min=1).as_dict() == {"length": {"min": 1}}
    assert Modulo(2, 0).as_dict() == {"modulo": {"step": 2, "offset": 0}}
    assert AllowedValues(("a",)).as_dict() == {"allowed_values": ["a"]}
    assert AllowedPattern("x+").as_dict() == {"allowed_pattern": "x+"}
    assert CustomConstraint("nova.flavor").as_dict() == {"custom_constraint": "nova.flavor"}
