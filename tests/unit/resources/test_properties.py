"""Property validation: Heat's coercions, messages and error paths.

Expected messages were taken from openstack-heat 27 (``heat.engine.properties.Properties``) where
Heat words them deliberately; where Heat leaks a Python message (``int() argument must be...``,
``could not convert string to float``) Thermik says ``Value '...' is not an integer/a number``.
"""

from __future__ import annotations

from typing import Any

import pytest

from thermik.errors import PropertyError
from thermik.resources import (
    AllowedValues,
    CustomConstraint,
    Length,
    PropertySchema,
    Range,
    Type,
    validate_properties,
)

WHERE = ("resources", "r", "properties")


def check(schema: dict[str, PropertySchema], values: Any, **kwargs: Any) -> dict[str, Any]:
    return validate_properties(schema, values, path=WHERE, **kwargs)


def error(schema: dict[str, PropertySchema], values: Any, **kwargs: Any) -> str:
    with pytest.raises(PropertyError) as info:
        check(schema, values, **kwargs)
    return str(info.value)


def one(kind: Type, **kwargs: Any) -> dict[str, PropertySchema]:
    return {"p": PropertySchema(kind, **kwargs)}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("abc", "abc"), (12, "12"), (True, "True"), (None, "")],
)
def test_string_coercions(raw: Any, expected: str) -> None:
    assert check(one(Type.STRING), {"p": raw}) == {"p": expected}


@pytest.mark.parametrize(("raw", "shown"), [(3.5, "3.5"), ({"a": 1}, "{'a': 1}"), ([1], "[1]")])
def test_string_rejects_floats_maps_and_lists(raw: Any, shown: str) -> None:
    assert error(one(Type.STRING), {"p": raw}) == (
        f"resources.r.properties.p: Value must be a string; got {shown}"
    )


@pytest.mark.parametrize(
    ("raw", "expected"), [("5", 5), (5, 5), (5.7, 5), (True, 1), (" 7 ", 7), (None, 0)]
)
def test_integer_coercions_follow_heat(raw: Any, expected: int) -> None:
    assert check(one(Type.INTEGER), {"p": raw}) == {"p": expected}


@pytest.mark.parametrize("raw", ["abc", "1.5", [1], {}])
def test_integer_rejects_non_integers(raw: Any) -> None:
    assert error(one(Type.INTEGER), {"p": raw}) == (
        f"resources.r.properties.p: Value '{raw}' is not an integer"
    )


@pytest.mark.parametrize(
    ("raw", "expected"), [("1.5", 1.5), ("2", 2), (2.25, 2.25), (True, True), (None, 0)]
)
def test_number_coercions(raw: Any, expected: float) -> None:
    result = check(one(Type.NUMBER), {"p": raw})["p"]
    assert result == expected
    assert type(result) is type(expected)


@pytest.mark.parametrize("raw", ["abc", [1], {"a": 1}])
def test_number_rejects_non_numbers(raw: Any) -> None:
    assert error(one(Type.NUMBER), {"p": raw}) == (
        f"resources.r.properties.p: Value '{raw}' is not a number"
    )


@pytest.mark.parametrize(
    ("raw", "expected"), [(True, True), ("TRUE", True), ("false", False), (None, False)]
)
def test_boolean_coercions(raw: Any, expected: bool) -> None:
    assert check(one(Type.BOOLEAN), {"p": raw}) == {"p": expected}


@pytest.mark.parametrize(("raw", "shown"), [("Yes", "yes"), (1, "1"), (0, "0")])
def test_boolean_rejects_other_values(raw: Any, shown: str) -> None:
    assert error(one(Type.BOOLEAN), {"p": raw}) == (
        f'resources.r.properties.p: "{shown}" is not a valid boolean'
    )


def test_map_and_list_type_errors_use_heat_wording() -> None:
    assert error(one(Type.MAP), {"p": [1, 2]}) == 'resources.r.properties.p: "[1, 2]" is not a map'
    assert error(one(Type.MAP), {"p": "s"}) == 'resources.r.properties.p: "s" is not a map'
    assert error(one(Type.LIST), {"p": "a,b"}) == (
        "resources.r.properties.p: \"'a,b'\" is not a list"
    )
    assert error(one(Type.LIST), {"p": {"a": 1}}) == (
        "resources.r.properties.p: \"{'a': 1}\" is not a list"
    )


def test_explicit_null_gives_the_empty_value_or_default() -> None:
    schema = {
        "m": PropertySchema(Type.MAP),
        "l": PropertySchema(Type.LIST),
        "d": PropertySchema(Type.STRING, default="dflt"),
        "a": PropertySchema(Type.ANY),
    }
    assert check(schema, {"m": None, "l": None, "d": None, "a": None}) == {
        "m": {},
        "l": [],
        "d": "dflt",
        "a": None,
    }


def test_explicit_null_is_still_constrained_like_heat() -> None:
    schema = one(Type.INTEGER, required=True, constraints=(Range(1, 5),))
    assert error(schema, {"p": None}) == (
        "resources.r.properties.p: 0 is out of range (min: 1, max: 5)"
    )


def test_conversions_for_template_resource_properties() -> None:
    assert check(one(Type.MAP, allow_conversion=True), {"p": [1, 2]}) == {"p": "[1, 2]"}
    assert check(one(Type.MAP, allow_conversion=True), {"p": "{}"}) == {"p": "{}"}
    assert check(one(Type.LIST, allow_conversion=True), {"p": "a, b"}) == {"p": ["a", " b"]}
    assert check(one(Type.LIST, allow_conversion=True), {"p": ""}) == {"p": []}


def test_every_schema_key_is_returned_with_defaults() -> None:
    schema = {
        "a": PropertySchema(Type.STRING),
        "b": PropertySchema(Type.INTEGER, default=3),
        "c": PropertySchema(Type.LIST, default=["x"]),
    }
    assert check(schema, None) == {"a": None, "b": 3, "c": ["x"]}
    assert list(check(schema, {})) == ["a", "b", "c"]


def test_unknown_and_missing_properties_are_named_at_the_properties_level() -> None:
    schema = {"value": PropertySchema(Type.STRING, required=True)}
    assert error(schema, {"bogus": 1, "value": "v"}) == (
        "resources.r.properties: Unknown Property bogus"
    )
    assert error(schema, {}) == "resources.r.properties: Property value not assigned"


def test_properties_must_be_a_map() -> None:
    assert error(one(Type.STRING), ["p"]) == "resources.r.properties: \"['p']\" is not a map"


def test_unimplemented_property_is_refused_when_given() -> None:
    schema = one(Type.STRING, implemented=False)
    assert check(schema, {}) == {"p": None}
    assert error(schema, {"p": "x"}) == "resources.r.properties: Property p not implemented yet"


CLASSES = {
    "classes": PropertySchema(
        Type.LIST,
        schema=PropertySchema(
            Type.MAP,
            schema={
                "class": PropertySchema(
                    Type.STRING,
                    default="digits",
                    constraints=(AllowedValues(("digits", "letters")),),
                ),
                "min": PropertySchema(Type.INTEGER, default=1, constraints=(Range(1, 512),)),
                "name": PropertySchema(Type.STRING, required=False),
            },
        ),
    )
}


def test_nested_list_of_maps_is_filled_and_coerced() -> None:
    result = check(CLASSES, {"classes": [{"class": "letters", "min": "3"}, {}]})
    assert result == {
        "classes": [
            {"class": "letters", "min": 3, "name": None},
            {"class": "digits", "min": 1, "name": None},
        ]
    }


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (
            {"classes": [{"class": "digits"}, {"class": "foo"}]},
            'resources.r.properties.classes[1].class: "foo" is not an allowed value '
            '["digits", "letters"]',
        ),
        (
            {"classes": [{"klass": "x"}]},
            "resources.r.properties.classes[0]: Unknown Property klass",
        ),
        (
            {"classes": ["abc"]},
            'resources.r.properties.classes[0]: "abc" is not a map',
        ),
        (
            {"classes": [{"min": 0}]},
            "resources.r.properties.classes[0].min: 0 is out of range (min: 1, max: 512)",
        ),
    ],
)
def test_nested_errors_name_the_exact_place(values: dict[str, Any], message: str) -> None:
    assert error(CLASSES, values) == message


def test_nested_required_key_is_named_at_its_map() -> None:
    schema = {
        "p": PropertySchema(
            Type.MAP,
            schema={"a": PropertySchema(Type.MAP, schema={"b": PropertySchema(Type.INTEGER)})},
        ),
        "q": PropertySchema(
            Type.LIST,
            schema=PropertySchema(
                Type.MAP, schema={"b": PropertySchema(Type.INTEGER, required=True)}
            ),
        ),
    }
    assert error(schema, {"p": {"a": {"b": "q"}}}) == (
        "resources.r.properties.p.a.b: Value 'q' is not an integer"
    )
    assert error(schema, {"q": [{"b": 1}, {}]}) == (
        "resources.r.properties.q[1]: Property b not assigned"
    )


def test_list_items_without_map_schema() -> None:
    schema = one(Type.LIST, schema=PropertySchema(Type.INTEGER))
    assert check(schema, {"p": ["1", 2]}) == {"p": [1, 2]}
    assert error(schema, {"p": [1, "x"]}) == (
        "resources.r.properties.p[1]: Value 'x' is not an integer"
    )


class Call:
    """Stands for an intrinsic function call that cannot be resolved yet."""

    def __init__(self, name: str) -> None:
        self.name = name


def is_call(value: Any) -> bool:
    return isinstance(value, Call)


def test_unresolved_values_pass_through_unchecked() -> None:
    call = Call("get_attr")
    schema = {
        "n": PropertySchema(Type.INTEGER, required=True, constraints=(Range(1, 2),)),
        "l": PropertySchema(Type.LIST, schema=PropertySchema(Type.INTEGER)),
    }
    result = check(schema, {"n": call, "l": [1, call]}, unresolved=is_call)
    assert result == {"n": call, "l": [1, call]}
    # Without the predicate the same call object is a type error.
    assert "is not an integer" in error(schema, {"n": call})


def test_constraints_skip_partially_unresolved_values_except_length() -> None:
    call = Call("get_param")
    allowed = one(Type.LIST, constraints=(AllowedValues(("a",)),))
    assert check(allowed, {"p": ["b", call]}, unresolved=is_call) == {"p": ["b", call]}
    short = one(Type.LIST, constraints=(Length(max=1),))
    assert error(short, {"p": ["a", call]}, unresolved=is_call) == (
        "resources.r.properties.p: length (2) is out of range (min: None, max: 1)"
    )


def test_custom_constraints_use_the_callers_validators() -> None:
    schema = one(Type.STRING, constraints=(CustomConstraint("nova.flavor"),))
    flavors = {"nova.flavor": lambda v: None if v == "m1.small" else "No Flavor matching"}
    assert check(schema, {"p": "m1.small"}, custom_constraints=flavors) == {"p": "m1.small"}
    assert error(schema, {"p": "huge"}, custom_constraints=flavors) == (
        "resources.r.properties.p: Error validating value 'huge': No Flavor matching"
    )
    # Without a validator the engine cannot judge (no cloud): the value is accepted.
    assert check(schema, {"p": "huge"}) == {"p": "huge"}


def test_any_keeps_the_value_as_written() -> None:
    value = {"nested": [1, {"x": None}]}
    assert check(one(Type.ANY), {"p": value}) == {"p": value}
