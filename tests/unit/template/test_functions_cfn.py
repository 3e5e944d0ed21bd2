"""CFN templates (AWSTemplateFormatVersion 2010-09-09, HeatTemplateFormatVersion 2012-12-12)
and the CFN functions HOT 2013-05-23 still offers."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.template.support import MemoryContext, evaluate
from thermik.errors import FunctionError, ParameterError, TemplateError
from thermik.template import Identity, StackDefinition, Template, build_stack

AWS = ("AWSTemplateFormatVersion", "2010-09-09")
HEAT = ("HeatTemplateFormatVersion", "2012-12-12")


def cfn(body: dict[str, Any], version: tuple[str, str] = AWS, **params: Any) -> StackDefinition:
    template = Template.from_document({version[0]: version[1], **body})
    return build_stack(template, None, params, Identity("st", "id1", "proj"))


def out(value: Any, version: tuple[str, str] = AWS, ctx: Any = None, **body: Any) -> Any:
    stack = cfn({"Outputs": {"o": {"Value": value}}, **body}, version)
    return stack.resolve_output("o", ctx or MemoryContext())


RESOURCES = {"Resources": {"srv": {"Type": "OS::Heat::None"}}}
PARAMETERS = {"Parameters": {"Size": {"Type": "Number", "Default": "2"}}}


@pytest.mark.parametrize("version", [AWS, HEAT])
def test_ref_is_a_resource_id_or_a_parameter(version: tuple[str, str]) -> None:
    ctx = MemoryContext(ids={"srv": "uuid"})
    assert out({"Ref": "srv"}, version, ctx, **RESOURCES) == "uuid"
    assert out({"Ref": "Size"}, version, **PARAMETERS) == 2
    assert out({"Ref": "AWS::StackName"}, version) == "st"
    assert out({"Ref": "AWS::StackId"}, version) == "arn:openstack:heat::proj:stacks/st/id1"
    assert out({"Ref": "AWS::Region"}, version) == "ap-southeast-1"


def test_ref_unknown() -> None:
    with pytest.raises(FunctionError, match='reference "nope" is incorrect'):
        out({"Ref": "nope"})


@pytest.mark.parametrize("version", [AWS, HEAT])
def test_get_att(version: tuple[str, str]) -> None:
    ctx = MemoryContext(attributes={"srv": {"a": {"b": 1}}})
    assert out({"Fn::GetAtt": ["srv", "a"]}, version, ctx, **RESOURCES) == {"b": 1}
    with pytest.raises(FunctionError, match=r"\[resource_name, attribute\]"):
        out({"Fn::GetAtt": ["srv", "a", "b"]}, version, ctx, **RESOURCES)


@pytest.mark.parametrize("version", [AWS, HEAT])
def test_string_functions(version: tuple[str, str]) -> None:
    assert out({"Fn::Join": ["-", ["a", "b"]]}, version) == "a-b"
    assert out({"Fn::Split": [",", "a,b"]}, version) == ["a", "b"]
    assert out({"Fn::Replace": [{"$x": "1"}, "v=$x"]}, version) == "v=1"
    assert out({"Fn::Base64": "plain"}, version) == "plain"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([1, ["a", "b"]], "b"),
        (["1", ["a", "b"]], "b"),
        ([5, ["a"]], ""),
        (["k", {"k": "v"}], "v"),
        (["x", {"k": "v"}], ""),
        ([0, '["j"]'], "j"),
        ([0, ""], ""),
        ([0, None], ""),
    ],
)
def test_select(args: list[Any], expected: Any) -> None:
    assert out({"Fn::Select": args}) == expected


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ([0], "must be of the form"),
        ([0, "{bad"], "Fn::Select"),
        ([0, {"k": 1}], "string"),
        (["x", ["a"]], "must be an integer"),
        ([0, 5], "not fully resolved"),
    ],
)
def test_select_errors(args: list[Any], match: str) -> None:
    with pytest.raises(FunctionError, match=match):
        out({"Fn::Select": args})


def test_member_list_to_map() -> None:
    members = [".member.0.Name=color", ".member.0.Value=red", ".member.1.Name=size",
               ".member.1.Value=big", ".member.2.Name=lonely"]  # fmt: skip
    assert out({"Fn::MemberListToMap": ["Name", "Value", members]}) == {
        "color": "red",
        "size": "big",
    }
    with pytest.raises(FunctionError, match="key=value"):
        out({"Fn::MemberListToMap": ["Name", "Value", ["nope"]]})
    with pytest.raises(FunctionError, match="Key Name must be a string"):
        out({"Fn::MemberListToMap": [1, "Value", []]})


def test_find_in_map() -> None:
    body = {"Mappings": {"Region": {"east": {"ami": "ami-1"}}}}
    assert out({"Fn::FindInMap": ["Region", "east", "ami"]}, **body) == "ami-1"
    with pytest.raises(FunctionError, match="no value for"):
        out({"Fn::FindInMap": ["Region", "west", "ami"]}, **body)


def test_get_azs_and_facade_need_the_engine() -> None:
    assert out({"Fn::GetAZs": ""}) == ["nova"]
    ctx = MemoryContext(facade={"update_policy": {"x": 1}})
    assert out({"Fn::ResourceFacade": "UpdatePolicy"}, AWS, ctx) == {"x": 1}
    with pytest.raises(FunctionError, match="should be one of: Metadata"):
        out({"Fn::ResourceFacade": "metadata"})


def test_conditions_in_aws_templates() -> None:
    body = {
        "Parameters": {"Env": {"Type": "String", "Default": "prod"}},
        "Conditions": {
            "Prod": {"Fn::Equals": [{"Ref": "Env"}, "prod"]},
            "Dev": {"Fn::Not": ["Prod"]},
            "Any": {"Fn::Or": ["Prod", "Dev"]},
            "All": {"Fn::And": ["Prod", {"Fn::Equals": [1, 1]}]},
        },
        "Resources": {
            "a": {"Type": "OS::Heat::None", "Condition": "Prod"},
            "b": {"Type": "OS::Heat::None", "Condition": "Dev", "DependsOn": "a"},
        },
        "Outputs": {
            "o": {"Value": {"Fn::If": ["All", "yes", "no"]}},
            "p": {"Value": "x", "Condition": "Dev"},
        },
    }
    stack = cfn(body)
    assert set(stack.resources) == {"a"}
    assert stack.resolve_output("o") == "yes"
    assert stack.outputs["p"].enabled is False


def test_fn_not_takes_a_one_item_list() -> None:
    with pytest.raises(FunctionError, match=r"\[condition\]"):
        cfn({"Conditions": {"c": {"Fn::Not": "x"}}})


def test_heat_cfn_has_no_conditions() -> None:
    with pytest.raises(TemplateError, match="section is invalid: Conditions"):
        cfn({"Conditions": {}}, HEAT)
    assert out({"Fn::If": ["c", 1, 2]}, HEAT) == {"Fn::If": ["c", 1, 2]}


def test_cfn_resource_keys_and_deletion_policy() -> None:
    body = {
        "Resources": {
            "a": {"Type": "OS::Heat::None", "DeletionPolicy": "Retain",
                  "Metadata": {"m": 1}, "UpdatePolicy": {"u": 1}, "Description": "d",
                  "Properties": {"p": {"Ref": "b"}}},
            "b": {"Type": "OS::Heat::None", "Ignored": "CFN ignores unknown keys"},
        }
    }  # fmt: skip
    stack = cfn(body)
    a = stack.resources["a"]
    assert (a.deletion_policy, a.description) == ("Retain", "d")
    assert stack.resolve_metadata("a") == {"m": 1}
    assert stack.resolve_update_policy("a") == {"u": 1}
    assert stack.dependencies()["a"] == {"b"}


def test_cfn_errors_name_cfn_keys() -> None:
    with pytest.raises(TemplateError) as info:
        cfn({"Resources": {"a": {"Type": "OS::Heat::None", "DeletionPolicy": "delete"}}})
    assert str(info.value).startswith("Resources.a.DeletionPolicy: Invalid deletion policy")
    with pytest.raises(TemplateError, match="Each resource definition must contain a Type key"):
        cfn({"Resources": {"a": {"Properties": {}}}})
    with pytest.raises(TemplateError, match="must contain a Value key"):
        cfn({"Outputs": {"o": {"Description": "x"}}})


def test_cfn_parameters() -> None:
    body = {"Parameters": {
        "S": {"Type": "String", "MinLength": 2, "MaxLength": "5", "AllowedValues": ["ab", "cd"],
              "ConstraintDescription": "two letters", "NoEcho": "True"},
    }}  # fmt: skip
    assert cfn(body, S="cd").parameters["S"] == "cd"
    with pytest.raises(ParameterError, match=r"Parameters\.S: two letters"):
        cfn(body, S="zz")


@pytest.mark.parametrize(
    ("fn", "args", "expected"),
    [
        ("Fn::Join", [",", ["a", "b"]], "a,b"),
        ("Fn::Select", [0, ["x"]], "x"),
        ("Fn::Split", [",", "a,b"], ["a", "b"]),
        ("Fn::Replace", [{"a": "b"}, "a"], "b"),
        ("Fn::Base64", "x", "x"),
        ("Fn::MemberListToMap", ["N", "V", []], {}),
    ],
)
def test_cfn_functions_in_hot_2013(fn: str, args: Any, expected: Any) -> None:
    assert evaluate({fn: args}, "2013-05-23") == expected


def test_ref_in_hot_2013() -> None:
    resources = {"r": {"type": "OS::Heat::None"}}
    assert evaluate({"Ref": "r"}, "2013-05-23", resources=resources) == "id-r"


@pytest.mark.parametrize(
    ("fn", "args"),
    [
        ("Fn::Join", [",", []]),
        ("Ref", "x"),
        ("Fn::GetAZs", ""),
        ("Fn::Base64", "x"),
        ("Fn::Split", [",", "a"]),
        ("Fn::Replace", [{}, "a"]),
        ("Fn::ResourceFacade", "Metadata"),
        ("Fn::MemberListToMap", ["a", "b", []]),
    ],
)
def test_cfn_functions_removed_in_hot_2014(fn: str, args: Any) -> None:
    with pytest.raises(FunctionError) as info:
        evaluate({fn: args}, "2014-10-16")
    assert str(info.value) == (
        f'outputs.o.value.{fn}: The function "{fn}" is not supported in heat_template_version '
        "2014-10-16 (it was removed)"
    )


def test_select_lives_until_2015_10_15() -> None:
    assert evaluate({"Fn::Select": [1, ["a", "b"]]}, "2015-04-30") == "b"
    with pytest.raises(FunctionError, match="not supported in heat_template_version 2015-10-15"):
        evaluate({"Fn::Select": [1, ["a", "b"]]}, "2015-10-15")
