"""conditions, equals/not/and/or, if (incl. the 2021-04-16 two-argument form)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tests.unit.template.support import evaluate, make_stack, versions_from
from thermik.errors import FunctionError, TemplateError

PARAMS = {"env": {"type": "string", "default": "prod"}, "n": {"type": "number", "default": 3}}
CONDITIONS = {
    "is_prod": {"equals": [{"get_param": "env"}, "prod"]},
    "is_dev": {"not": "is_prod"},
    "big": {"equals": [{"get_param": "n"}, 3]},
    "both": {"and": ["is_prod", "big", True]},
    "either": {"or": ["is_dev", {"equals": [1, 2]}]},
}


def cond(snippet: Any, version: str = "2021-04-16", **kw: Any) -> Any:
    return evaluate(snippet, version, parameters=PARAMS, conditions=CONDITIONS, **kw)


@pytest.mark.parametrize("version", versions_from("2016-10-14"))
def test_if_with_condition_names(version: str) -> None:
    assert cond({"if": ["is_prod", "a", "b"]}, version) == "a"
    assert cond({"if": ["is_dev", "a", "b"]}, version) == "b"
    assert cond({"if": ["both", "a", "b"]}, version) == "a"
    assert cond({"if": ["either", "a", "b"]}, version) == "b"


def test_if_with_inline_condition_and_bool() -> None:
    assert cond({"if": [{"equals": [{"get_param": "n"}, 3]}, 1, 2]}) == 1
    assert cond({"if": [False, 1, 2]}) == 2


def test_if_parses_only_the_chosen_branch() -> None:
    assert cond({"if": ["is_prod", "ok", {"get_resource": "missing"}]}) == "ok"


def test_if_false_without_else_removes_the_item() -> None:
    snippet = {"list": [1, {"if": ["is_dev", 2]}, 3], "map": {"a": {"if": ["is_dev", 1]}, "b": 2}}
    assert cond(snippet) == {"list": [1, 3], "map": {"b": 2}}
    assert cond({"if": ["is_dev", 2]}) is None


def test_removed_items_also_vanish_from_function_arguments() -> None:
    assert cond({"list_join": [",", ["a", {"if": ["is_dev", "b"]}, "c"]]}) == "a,c"


@pytest.mark.parametrize("version", ["2016-10-14", "2018-08-31"])
def test_two_argument_if_needs_2021_04_16(version: str) -> None:
    with pytest.raises(FunctionError, match=r"\[condition_name, value_if_true, value_if_false\]"):
        cond({"if": ["is_dev", 2]}, version)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ("x", "must be of the form"),
        (["is_prod", 1, 2, 3], "must be of the form"),
        (["nope", 1, 2], 'Invalid condition "nope"'),
    ],
)
def test_if_errors(args: Any, match: str) -> None:
    with pytest.raises(FunctionError, match=match) as info:
        cond({"if": args})
    assert str(info.value).startswith("outputs.o.value.if")


def test_if_before_2016_10_14_is_data_as_in_heat() -> None:
    assert evaluate({"if": [True, 1, 2]}, "2016-04-08") == {"if": [True, 1, 2]}


def test_conditions_section_needs_2016_10_14() -> None:
    with pytest.raises(TemplateError, match="The template section is invalid: conditions"):
        make_stack({"conditions": {"a": True}}, "2016-04-08")


@pytest.mark.parametrize(
    ("definition", "match"),
    [
        ({"equals": [1]}, "must be of the form"),
        ({"and": ["a"]}, "minimum number"),
        ({"or": "a"}, "must be a list of conditions"),
        ({"not": None}, "must be a condition"),
        ("just a string", "is invalid"),
        ({"list_join": [",", []]}, "invalid in this context"),
        ({"if": [True, 1, 2]}, "invalid in this context"),
    ],
)
def test_bad_condition_definitions(definition: Any, match: str) -> None:
    with pytest.raises(TemplateError, match=match) as info:
        make_stack({"conditions": {"c": definition}})
    assert str(info.value).startswith("conditions.c")


def test_condition_function_from_a_later_version() -> None:
    with pytest.raises(FunctionError, match=r'"contains" is not available in .*2017-02-24'):
        make_stack({"conditions": {"c": {"contains": [1, [1]]}}}, "2017-02-24")


@pytest.mark.parametrize("version", versions_from("2017-09-01"))
def test_yaql_and_contains_in_conditions(version: str) -> None:
    conditions = {
        "c": {"contains": ["b", ["a", "b"]]},
        "y": {"yaql": {"expression": "$.data.n > 2", "data": {"n": 3}}},
    }
    assert evaluate({"if": [{"and": ["c", "y"]}, 1, 2]}, version, conditions=conditions) == 1


def test_circular_conditions() -> None:
    body = {
        "conditions": {"a": {"not": "b"}, "b": {"not": "a"}},
        "resources": {"r": {"type": "OS::Heat::None", "condition": "a"}},
    }
    with pytest.raises(TemplateError, match='Circular definition for condition "a"'):
        make_stack(body)


def test_unknown_condition_name_in_not() -> None:
    body = {
        "conditions": {"a": {"not": "missing"}},
        "resources": {"r": {"type": "OS::Heat::None", "condition": "a"}},
    }
    with pytest.raises(FunctionError, match='Invalid condition "missing"'):
        make_stack(body)


def test_unused_conditions_are_parsed_but_not_evaluated() -> None:
    assert make_stack({"conditions": {"a": {"not": "missing"}}}).resources == {}
    with pytest.raises(FunctionError, match="invalid in this context"):
        make_stack({"conditions": {"a": {"get_resource": "x"}}})


def test_resource_and_output_conditions() -> None:
    body = {
        "parameters": PARAMS,
        "conditions": CONDITIONS,
        "resources": {
            "on": {"type": "OS::Heat::None", "condition": "is_prod"},
            "off": {"type": "OS::Heat::None", "condition": "is_dev"},
            "inline": {"type": "OS::Heat::None", "condition": {"not": "is_dev"}},
            "dep": {"type": "OS::Heat::None", "depends_on": ["off", "on"]},
        },
        "outputs": {
            "shown": {"value": {"get_resource": "on"}, "condition": "is_prod"},
            "hidden": {"value": {"get_resource": "off"}, "condition": "is_dev"},
        },
    }
    stack = make_stack(body)
    assert set(stack.resources) == {"on", "inline", "dep"}
    assert stack.all_resource_names == {"on", "off", "inline", "dep"}
    assert stack.dependencies()["dep"] == {"on"}
    assert stack.outputs["hidden"].enabled is False
    assert stack.resolve_output("hidden") is None


def test_resource_condition_must_exist() -> None:
    body = {"resources": {"r": {"type": "OS::Heat::None", "condition": "nope"}}}
    with pytest.raises(FunctionError) as info:
        make_stack(body)
    assert str(info.value) == 'resources.r.condition: Invalid condition "nope"'


def test_condition_keys_need_2016_10_14() -> None:
    with pytest.raises(TemplateError, match='"condition" is not a valid keyword'):
        make_stack({"resources": {"r": {"type": "OS::Heat::None", "condition": True}}},
                   "2016-04-08")  # fmt: skip


@pytest.mark.parametrize("word", ["yes", "off"])
def test_a_condition_named_by_a_yaml_boolean_word_is_refused(word: str) -> None:
    # Real Heat 27 fails such a template at create (a TypeError of its own); quoted, the name
    # is an ordinary one, and a reference ``condition: yes`` is the boolean.
    document = yaml.safe_load(f"{word}: true\n")
    name = next(iter(document))
    with pytest.raises(TemplateError, match="must be quoted") as info:
        make_stack({"conditions": document})
    assert str(info.value).startswith(f"conditions.{name}:")
    make_stack({"conditions": {word: True}, "outputs": {"o": {"value": {"if": [word, 1, 2]}}}})
