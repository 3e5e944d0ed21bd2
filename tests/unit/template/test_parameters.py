"""Parameters: types coerced as Heat does, constraints, defaults, groups, pseudo parameters."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.template.support import make_stack
from thermik.errors import ParameterError
from thermik.template import Environment


def value(ptype: str, given: Any, **schema: Any) -> Any:
    stack = make_stack({"parameters": {"p": {"type": ptype, **schema}}}, params={"p": given})
    return stack.parameters["p"]


@pytest.mark.parametrize(
    ("given", "expected"),
    [("3", 3), ("1.50", 1.5), (7, 7), (2.5, 2.5), (" 4 ", 4), ("-1e3", -1000.0)],
)
def test_number_keeps_int_or_float(given: Any, expected: Any) -> None:
    result = value("number", given)
    assert result == expected
    assert type(result) is type(expected)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("true", True),
        ("Yes", True),
        ("1", True),
        ("on", True),
        ("t", True),
        ("y", True),
        ("false", False),
        ("NO", False),
        ("0", False),
        ("off", False),
        (True, True),
        (0, False),
    ],
)
def test_boolean_accepts_what_heat_accepts(given: Any, expected: bool) -> None:
    assert value("boolean", given) is expected


def test_boolean_refuses_other_words() -> None:
    with pytest.raises(ParameterError, match="Unrecognized value 'maybe'") as info:
        value("boolean", "maybe")
    assert str(info.value).startswith("parameters.p: ")
    assert info.value.parameter == "p"


@pytest.mark.parametrize(
    ("given", "expected"),
    [("a,b", ["a", "b"]), ("a, b ,c", ["a", " b ", "c"]), ("", []), (["x", 1], ["x", "1"])],
)
def test_comma_delimited_list_splits_like_heat(given: Any, expected: list[str]) -> None:
    assert value("comma_delimited_list", given) == expected


@pytest.mark.parametrize(
    ("given", "expected"),
    [('{"a": [1, 2]}', {"a": [1, 2]}), ({"a": 1}, {"a": 1}), ("[1]", [1]), ([1, 2], [1, 2])],
)
def test_json_accepts_text_or_data(given: Any, expected: Any) -> None:
    assert value("json", given) == expected


def test_string_makes_text() -> None:
    assert value("string", 12) == "12"
    assert value("string", "x") == "x"


@pytest.mark.parametrize(
    ("ptype", "given", "match"),
    [
        ("number", "abc", "could not convert string to float"),
        ("json", "{bad", "Value must be valid JSON"),
        ("comma_delimited_list", 5, "Value must be a comma-delimited list string"),
    ],
)
def test_wrong_types(ptype: str, given: Any, match: str) -> None:
    with pytest.raises(ParameterError, match=match):
        value(ptype, given)


def test_values_come_from_user_then_parameter_defaults_then_default() -> None:
    body = {"parameters": {n: {"type": "string", "default": "d"} for n in ("a", "b", "c")}}
    env = Environment(parameters={"a": "env"}, parameter_defaults={"a": "pd", "b": "pd"})
    stack = make_stack(body, params={"a": "user"}, env=env)
    assert dict(stack.parameters) | {} == {
        "OS::stack_id": "42", "OS::project_id": "", "OS::stack_name": "s",
        "a": "user", "b": "pd", "c": "d",
    }  # fmt: skip


def test_missing_value_names_the_parameter() -> None:
    with pytest.raises(ParameterError) as info:
        make_stack({"parameters": {"p": {"type": "string"}}})
    assert str(info.value) == "parameters.p: The Parameter (p) was not provided."
    assert info.value.parameter == "p"


def test_unknown_user_parameter() -> None:
    with pytest.raises(ParameterError, match=r"The Parameter \(q\) was not defined in template"):
        make_stack({}, params={"q": 1})
    with pytest.raises(ParameterError, match="not defined"):
        make_stack({}, params={"OS::stack_id": "x"})


CONSTRAINED = {
    "s": {"type": "string", "constraints": [
        {"length": {"min": 2, "max": 4}}, {"allowed_pattern": "[a-z]+"},
        {"allowed_values": ["ab", "abc", "zzzzz"], "description": "pick one"}]},
    "n": {"type": "number", "constraints": [{"range": {"min": 1, "max": 9}},
                                             {"modulo": {"step": 2, "offset": 1}}]},
    "l": {"type": "comma_delimited_list", "constraints": [
        {"allowed_values": ["a", "b"]}, {"length": {"max": 2}}]},
    "j": {"type": "json", "constraints": [{"length": {"min": 1}}]},
    "b": {"type": "boolean", "constraints": [{"allowed_values": [True]}]},
}  # fmt: skip
GOOD = {"s": "abc", "n": "3", "l": "a,b", "j": '{"k": 1}', "b": "yes"}


def constrained(**changes: Any) -> Any:
    return make_stack({"parameters": CONSTRAINED}, params={**GOOD, **changes})


def test_constraints_accept_good_values() -> None:
    assert constrained().parameters["n"] == 3


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"s": "a"}, "parameters.s: length (1) is out of range (min: 2, max: 4)"),
        ({"s": "AB"}, 'parameters.s: "AB" does not match pattern "[a-z]+"'),
        ({"s": "abcd"}, "parameters.s: pick one"),
        ({"n": 11}, "parameters.n: 11 is out of range (min: 1, max: 9)"),
        ({"n": "4"}, "parameters.n: 4 is not a multiple of 2 with an offset of 1"),
        ({"l": "a,c"}, 'parameters.l: ["a", "c"] is not an allowed value ["a", "b"]'),
        ({"l": "a,a,a"}, "parameters.l: length (3) is out of range (min: None, max: 2)"),
        ({"j": "{}"}, "parameters.j: length (0) is out of range (min: 1, max: None)"),
        ({"b": "no"}, 'parameters.b: "no" is not an allowed value [true]'),
    ],
)
def test_constraint_violations(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ParameterError) as info:
        constrained(**changes)
    assert str(info.value) == message


def test_allowed_pattern_must_span_the_first_match() -> None:
    params = {"p": {"type": "string", "constraints": [{"allowed_pattern": "a|ab"}]}}
    with pytest.raises(ParameterError, match="does not match"):
        make_stack({"parameters": params}, params={"p": "ab"})


def test_modulo_needs_2017_02_24() -> None:
    params = {"p": {"type": "number", "constraints": [{"modulo": {"step": 2, "offset": 0}}]}}
    with pytest.raises(ParameterError, match="No constraint expressed"):
        make_stack({"parameters": params}, "2016-10-14", params={"p": 2})


@pytest.mark.parametrize(
    ("schema", "match"),
    [
        ({"type": "String"}, r"Invalid type \(String\)"),
        ({}, "Missing parameter type"),
        ({"type": "string", "bogus": 1}, "Invalid key 'bogus' for parameter"),
        ({"type": "string", "constraints": {"length": {}}}, "expected a list"),
        ({"type": "string", "constraints": [{"length": {}}]}, "must have a min value"),
        ({"type": "string", "constraints": [{"length": {"min": 1.5}}]}, "must be integral"),
        ({"type": "number", "constraints": [{"range": {"min": "x"}}]}, "must be numeric"),
        ({"type": "number", "constraints": [{"range": {"low": 1}}]}, "Invalid key 'low'"),
        ({"type": "number", "constraints": [{"modulo": {"step": 0, "offset": 0}}]}, "step cannot"),
        ({"type": "number", "constraints": [{"modulo": {"step": 2, "offset": 3}}]}, "smaller"),
        ({"type": "number", "constraints": [{"modulo": {"step": 2, "offset": -1}}]}, "both pos"),
        ({"type": "number", "constraints": [{"modulo": {"step": 2}}]}, "must have a step"),
        ({"type": "string", "constraints": [{"allowed_values": "a"}]}, "must be a list"),
        ({"type": "string", "constraints": [{"allowed_pattern": "("}]}, "not a valid regex"),
        ({"type": "number", "constraints": [{"length": {"min": 1}}]}, "Length constraint invalid"),
        ({"type": "json", "constraints": [{"allowed_values": [1]}]}, "AllowedValues constraint"),
        ({"type": "string", "constraints": [{"range": {"min": 1}}]}, "Range constraint invalid"),
        (
            {"type": "string", "default": "x", "constraints": [{"length": {"min": 2}}]},
            r"Invalid default x \(length \(1\)",
        ),
        ({"type": "string", "tags": "x"}, "Tags property should be a list"),
        ("string", "expected a mapping"),
    ],
)
def test_schema_errors(schema: Any, match: str) -> None:
    with pytest.raises(ParameterError, match=match) as info:
        make_stack({"parameters": {"p": schema}}, params={"p": "1"})
    assert str(info.value).startswith("parameters.p: ")


def test_tags_need_2018_03_02() -> None:
    with pytest.raises(ParameterError, match="Invalid key 'tags'"):
        make_stack({"parameters": {"p": {"type": "string", "tags": []}}}, "2017-09-01",
                   params={"p": "x"})  # fmt: skip


def test_comma_delimited_default_is_checked_as_a_list() -> None:
    schema = {"type": "comma_delimited_list", "default": "a,b,c",
              "constraints": [{"length": {"max": 2}}]}  # fmt: skip
    with pytest.raises(ParameterError, match="Invalid default a,b,c"):
        make_stack({"parameters": {"p": schema}})


def test_custom_constraints_are_pluggable() -> None:
    def flavor(value: Any) -> None:
        if value != "m1.small":
            raise ValueError(f"no flavor {value}")

    schema = {"type": "string", "constraints": [{"custom_constraint": "nova.flavor"}]}
    body = {"parameters": {"p": schema}}
    validators = {"nova.flavor": flavor}
    assert make_stack(body, params={"p": "m1.small"}, custom_constraints=validators)
    with pytest.raises(ParameterError, match=r"parameters\.p: no flavor m1\.big"):
        make_stack(body, params={"p": "m1.big"}, custom_constraints=validators)
    with pytest.raises(ParameterError, match=r"does not validate nova.flavor \(constraint not"):
        make_stack(body, params={"p": "x"}, custom_constraints={})
    assert make_stack(body, params={"p": "anything"}, custom_constraints=None)


def test_a_custom_constraint_validator_may_answer_with_its_reason() -> None:
    def keypair(value: Any) -> str | None:
        return None if value == "mine" else f"The Key ({value}) could not be found."

    schema = {"type": "string", "constraints": [{"custom_constraint": "nova.keypair"}]}
    body = {"parameters": {"k": schema}}
    assert make_stack(body, params={"k": "mine"}, custom_constraints={"nova.keypair": keypair})
    expected = r"parameters\.k: Error validating value 'x': The Key \(x\) could not be found\."
    with pytest.raises(ParameterError, match=expected):
        make_stack(body, params={"k": "x"}, custom_constraints={"nova.keypair": keypair})


def test_custom_constraint_default_is_not_checked_against_the_validator() -> None:
    schema = {"type": "string", "default": "x",
              "constraints": [{"custom_constraint": "glance.image"}]}  # fmt: skip
    with pytest.raises(ParameterError, match="does not validate"):
        make_stack({"parameters": {"p": schema}}, custom_constraints={})


def test_presentation_fields() -> None:
    schema = {"type": "string", "default": "v", "hidden": True, "label": "L",
              "description": "D", "immutable": True, "tags": ["t"]}  # fmt: skip
    param = make_stack({"parameters": {"p": schema}}).parameters.params["p"]
    assert (param.schema.hidden, param.schema.label, param.schema.description) == (True, "L", "D")
    assert (param.schema.immutable, param.schema.tags) == (True, ("t",))


def test_immutable_changes() -> None:
    body = {"parameters": {"i": {"type": "string", "immutable": True},
                           "m": {"type": "string"}}}  # fmt: skip
    old = make_stack(body, params={"i": "a", "m": "a"}).parameters
    assert old.immutable_changes(make_stack(body, params={"i": "a", "m": "b"}).parameters) == []
    new = make_stack(body, params={"i": "b", "m": "b"}).parameters
    assert old.immutable_changes(new) == ["i"]


def test_lenient_mode_needs_no_values() -> None:
    body = {"parameters": {"p": {"type": "number"}}}
    assert "p" not in make_stack(body, strict=False).parameters
    assert make_stack(body, params={"p": "x"}, strict=False).parameters.params["p"].user_value


@pytest.mark.parametrize(
    ("groups", "match"),
    [
        ("x", "should be a list"),
        (["x"], "must be a map"),
        ([{"label": "g"}], "must be provided"),
        ([{"parameters": "a"}], "should be a list"),
        ([{"parameters": ["zz"]}], "zz does not"),
        ([{"parameters": ["a"]}, {"label": "two", "parameters": ["a"]}], "one parameter group"),
    ],
)
def test_parameter_group_errors(groups: Any, match: str) -> None:
    body = {"parameter_groups": groups, "parameters": {"a": {"type": "string", "default": ""}}}
    with pytest.raises(ParameterError, match=match) as info:
        make_stack(body)
    assert str(info.value).startswith("parameter_groups")


def test_parameter_groups_accept_pseudo_parameters() -> None:
    body = {"parameter_groups": [{"parameters": ["OS::stack_id"]}]}
    assert make_stack(body).parameters


def test_pseudo_parameters_of_region() -> None:
    from thermik.template import Identity, Template, build_stack

    template = Template.from_document({"heat_template_version": "2021-04-16"})
    stack = build_stack(template, None, {}, Identity("n", "i", "p", "RegionOne"))
    assert stack.parameters["OS::region"] == "RegionOne"
    assert "OS::stack_name" not in build_stack(template).parameters
