"""get_param, get_resource, get_attr (three generations), get_file and resource_facade."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.template.support import (
    HOT_VERSIONS,
    MemoryContext,
    evaluate,
    make_stack,
    versions_before,
    versions_from,
)
from thermik.errors import FunctionError, ParameterError
from thermik.template import StaticContext

JSON_PARAM = {"j": {"type": "json", "default": {"a": [10, {"b": "deep"}]}}}
SERVER = {"srv": {"type": "OS::Heat::None"}}
ATTRS = {"srv": {"networks": {"private": ["10.0.0.1", "10.0.0.2"]}, "name": "web"}}


@pytest.mark.parametrize("version", HOT_VERSIONS)
def test_get_param_with_path(version: str) -> None:
    assert evaluate({"get_param": ["j", "a", 1, "b"]}, version, parameters=JSON_PARAM) == "deep"
    assert evaluate({"get_param": ["j", "a", "0"]}, version, parameters=JSON_PARAM) == 10


@pytest.mark.parametrize("path", [["j", "zz"], ["j", "a", 9], ["j", "a", "x"], ["j", "a", 0, 1]])
def test_get_param_unreachable_path_is_empty_string(path: list[Any]) -> None:
    assert evaluate({"get_param": path}, parameters=JSON_PARAM) == ""


def test_get_param_name_can_be_computed() -> None:
    params = {"which": {"type": "string", "default": "x"}, "x": {"type": "string", "default": "1"}}
    assert evaluate({"get_param": {"get_param": "which"}}, parameters=params) == "1"


def test_get_param_pseudo_parameters() -> None:
    assert evaluate({"get_param": "OS::stack_name"}) == "s"
    assert evaluate({"get_param": "OS::stack_id"}) == "42"
    assert evaluate({"get_param": "OS::project_id"}) == ""


def test_get_param_undefined_is_an_error_naming_it_when_resolved() -> None:
    stack = make_stack({"outputs": {"o": {"value": {"get_param": "nope"}}}})
    with pytest.raises(ParameterError) as info:
        stack.resolve_output("o")
    assert str(info.value) == "outputs.o.value.get_param: The Parameter (nope) was not provided."
    assert info.value.parameter == "nope"


@pytest.mark.parametrize(("args", "match"), [(5, "must be string or list"), ([], "must have")])
def test_get_param_argument_errors(args: Any, match: str) -> None:
    with pytest.raises(FunctionError, match=match):
        evaluate({"get_param": args})


def test_get_param_of_a_parameter_without_value_in_lenient_mode() -> None:
    stack = make_stack(
        {"parameters": {"p": {"type": "string"}}, "outputs": {"o": {"value": {"get_param": "p"}}}},
        strict=False,
    )
    with pytest.raises(ParameterError, match=r"The Parameter \(p\) was not provided"):
        stack.resolve_output("o")


@pytest.mark.parametrize("version", HOT_VERSIONS)
def test_get_resource(version: str) -> None:
    ctx = MemoryContext(ids={"srv": "uuid-1"})
    assert evaluate({"get_resource": "srv"}, version, resources=SERVER, ctx=ctx) == "uuid-1"


@pytest.mark.parametrize("fn", ["get_resource", "get_attr"])
def test_reference_to_unknown_resource_names_the_place(fn: str) -> None:
    args = "nope" if fn == "get_resource" else ["nope", "x"]
    with pytest.raises(FunctionError) as info:
        evaluate({fn: args}, resources=SERVER)
    assert str(info.value) == (
        f'outputs.o.value.{fn}: The specified reference "nope" is incorrect: the resource is '
        "not defined"
    )


def test_reference_to_disabled_resource() -> None:
    resources = {"srv": {"type": "OS::Heat::None", "condition": False}}
    with pytest.raises(FunctionError, match="disabled by its condition"):
        evaluate({"get_resource": "srv"}, resources=resources)


def test_resource_name_must_be_static_string() -> None:
    with pytest.raises(FunctionError, match="must be a string"):
        evaluate({"get_resource": ["srv"]}, resources=SERVER)
    snippet = {"get_resource": {"get_attr": ["srv", "name"]}}
    with pytest.raises(FunctionError, match="must not depend on resources"):
        evaluate(snippet, resources=SERVER)


def test_without_runtime_data_resource_functions_fail_clearly() -> None:
    stack = make_stack({"resources": SERVER, "outputs": {"o": {"value": {"get_resource": "srv"}}}})
    with pytest.raises(FunctionError, match='reference id of resource "srv" is not available'):
        stack.resolve_output("o", StaticContext())


def test_get_attr_2013_selects_after_reading_the_attribute() -> None:
    ctx = MemoryContext(attributes=ATTRS)
    snippet = {"get_attr": ["srv", "networks", "private", 1]}
    assert evaluate(snippet, "2013-05-23", resources=SERVER, ctx=ctx) == "10.0.0.2"
    assert ctx.calls == [("attr", "srv", "networks", ())]


@pytest.mark.parametrize("version", versions_from("2014-10-16"))
def test_get_attr_hands_the_path_to_the_resource(version: str) -> None:
    ctx = MemoryContext(attributes=ATTRS)
    snippet = {"get_attr": ["srv", "networks", "private", 1]}
    assert evaluate(snippet, version, resources=SERVER, ctx=ctx) == "10.0.0.2"
    assert ctx.calls == [("attr", "srv", "networks", ("private", 1))]


@pytest.mark.parametrize("version", versions_from("2015-10-15"))
def test_get_attr_all_attributes(version: str) -> None:
    ctx = MemoryContext(attributes=ATTRS)
    assert evaluate({"get_attr": ["srv"]}, version, resources=SERVER, ctx=ctx) == ATTRS["srv"]


@pytest.mark.parametrize("version", versions_before("2015-10-15"))
def test_get_attr_needs_an_attribute_before_2015_10_15(version: str) -> None:
    with pytest.raises(FunctionError, match=r"\[resource_name, attribute, \(path\), ...\]"):
        evaluate({"get_attr": ["srv"]}, version, resources=SERVER)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ("srv", "must be a list"),
        ([], "can be of the next forms"),
        (["srv", 5], 'attribute name of "get_attr" must be a string'),
    ],
)
def test_get_attr_errors(args: Any, match: str) -> None:
    with pytest.raises(FunctionError, match=match):
        evaluate({"get_attr": args}, resources=SERVER, ctx=MemoryContext(attributes=ATTRS))


def test_get_attr_with_computed_attribute_name() -> None:
    params = {"a": {"type": "string", "default": "name"}}
    ctx = MemoryContext(attributes=ATTRS)
    snippet = {"get_attr": ["srv", {"get_param": "a"}]}
    assert evaluate(snippet, parameters=params, resources=SERVER, ctx=ctx) == "web"


@pytest.mark.parametrize("version", HOT_VERSIONS)
def test_get_file(version: str) -> None:
    files = {"script.sh": "#!/bin/sh\necho hi\n"}
    assert evaluate({"get_file": "script.sh"}, version, files=files) == files["script.sh"]


def test_get_file_missing_is_an_error_when_resolved() -> None:
    stack = make_stack({"outputs": {"o": {"value": {"get_file": "nope.sh"}}}})
    with pytest.raises(FunctionError) as info:
        stack.resolve_output("o")
    assert str(info.value) == (
        'outputs.o.value.get_file: No content found in the "files" section for get_file path: '
        "nope.sh"
    )


def test_get_file_computed_key() -> None:
    params = {"f": {"type": "string", "default": "a"}}
    assert evaluate({"get_file": {"get_param": "f"}}, parameters=params, files={"a": "x"}) == "x"
    with pytest.raises(FunctionError, match="must be a string"):
        evaluate({"get_file": ["a"]})


@pytest.mark.parametrize("version", HOT_VERSIONS)
def test_resource_facade(version: str) -> None:
    ctx = MemoryContext(facade={"metadata": {"m": 1}, "deletion_policy": "Retain"})
    assert evaluate({"resource_facade": "metadata"}, version, ctx=ctx) == {"m": 1}
    assert evaluate({"resource_facade": "deletion_policy"}, version, ctx=ctx) == "Retain"


def test_resource_facade_argument() -> None:
    with pytest.raises(FunctionError, match="should be one of: metadata, deletion_policy"):
        evaluate({"resource_facade": "Metadata"})
