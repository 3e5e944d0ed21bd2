"""The validate API's shape, checked against what Heat returns for the same templates."""

from __future__ import annotations

from typing import Any

import pytest

from thermik.errors import ParameterError, TemplateError
from thermik.template import Environment, Template
from thermik.template.validate import validate_template

BASIC = {
    "heat_template_version": "2018-03-02",
    "parameter_groups": [{"label": "g1", "description": "first", "parameters": ["p1", "n"]}],
    "parameters": {
        "p1": {"type": "string", "label": "P one", "description": "first param", "default": "abc",
               "hidden": True, "constraints": [
                   {"length": {"min": 1, "max": 10}, "description": "between 1 and 10"},
                   {"allowed_pattern": "[a-z]+"},
                   {"allowed_values": ["abc", "def"], "description": "one of two"}]},
        "n": {"type": "number", "constraints": [
            {"range": {"min": 1}}, {"modulo": {"step": 2, "offset": 1}},
            {"custom_constraint": "nova.flavor"}]},
        "l": {"type": "comma_delimited_list", "default": "a,b", "tags": ["t1"]},
        "j": {"type": "json", "immutable": True},
        "b": {"type": "boolean", "default": True},
    },
    "resources": {"r": {"type": "OS::Heat::None"}},
}  # fmt: skip

# Heat 27 (validate_template) for BASIC with parameters {"n": "3"}.
HEAT_BASIC: dict[str, Any] = {
    "Description": "No description",
    "Environment": {"event_sinks": [], "parameter_defaults": {}, "parameters": {"n": "3"},
                    "resource_registry": {"resources": {}}},
    "ParameterGroups": [{"description": "first", "label": "g1", "parameters": ["p1", "n"]}],
    "Parameters": {
        "b": {"Default": True, "Description": "", "Label": "b", "NoEcho": "false",
              "Type": "Boolean"},
        "j": {"Description": "", "Label": "j", "NoEcho": "false", "Type": "Json"},
        "l": {"Default": "a,b", "Description": "", "Label": "l", "NoEcho": "false",
              "Tags": ["t1"], "Type": "CommaDelimitedList"},
        "n": {"CustomConstraint": "nova.flavor", "Description": "", "Label": "n", "MinValue": 1,
              "NoEcho": "false", "Offset": 1, "Step": 2, "Type": "Number", "Value": "3"},
        "p1": {"AllowedPattern": "[a-z]+", "AllowedValues": ["abc", "def"],
               "ConstraintDescription": "between 1 and 10 one of two", "Default": "abc",
               "Description": "first param", "Label": "P one", "MaxLength": 10, "MinLength": 1,
               "NoEcho": "true", "Type": "String"},
    },
}  # fmt: skip

CFN = {
    "AWSTemplateFormatVersion": "2010-09-09",
    "Description": "a cfn one",
    "Parameters": {
        "S": {"Type": "String", "MinLength": 2, "MaxLength": "5", "AllowedValues": ["ab", "cd"],
              "ConstraintDescription": "cd", "NoEcho": "True"},
        "N": {"Type": "Number", "MinValue": 1, "MaxValue": 5, "Default": 2},
    },
    "Resources": {"r": {"Type": "OS::Heat::None"}},
}  # fmt: skip
HEAT_CFN_PARAMETERS = {
    "N": {"Default": 2, "Description": "", "Label": "N", "MaxValue": 5, "MinValue": 1,
          "NoEcho": "false", "Type": "Number"},
    "S": {"AllowedValues": ["ab", "cd"], "ConstraintDescription": "cd cd", "Description": "",
          "Label": "S", "MaxLength": 5, "MinLength": 2, "NoEcho": "true", "Type": "String"},
}  # fmt: skip


def test_same_as_heat() -> None:
    result = validate_template(Template.from_document(BASIC), None, {"n": "3"})
    assert result == HEAT_BASIC


def test_cfn_same_as_heat() -> None:
    result = validate_template(Template.from_document(CFN))
    assert result["Description"] == "a cfn one"
    assert result["Parameters"] == HEAT_CFN_PARAMETERS
    assert "ParameterGroups" not in result


def test_environment_values_and_defaults() -> None:
    document = {
        "heat_template_version": "2016-10-14",
        "parameters": {"a": {"type": "string"}, "b": {"type": "string", "default": "x"}},
        "resources": {"r": {"type": "Custom::Thing"}, "s": {"type": "OS::Heat::None"}},
    }
    env = Environment.from_dict({
        "parameters": {"a": "from_env"}, "parameter_defaults": {"b": "pd"},
        "resource_registry": {"Custom::Thing": "OS::Heat::None",
                              "resources": {"s": {"hooks": "pre-create"}}},
    })  # fmt: skip
    result = validate_template(Template.from_document(document), env)
    assert result["Parameters"] == {
        "a": {"Description": "", "Label": "a", "NoEcho": "false", "Type": "String",
              "Value": "from_env"},
        "b": {"Default": "pd", "Description": "", "Label": "b", "NoEcho": "false",
              "Type": "String"},
    }  # fmt: skip
    assert result["Environment"]["resource_registry"] == {
        "Custom::Thing": "OS::Heat::None",
        "resources": {"s": {"hooks": "pre-create"}},
    }


def test_values_are_not_checked_but_schemas_are() -> None:
    document = {"heat_template_version": "2016-10-14",
                "parameters": {"a": {"type": "number", "default": "abc"}}}  # fmt: skip
    assert validate_template(Template.from_document(document))["Parameters"]["a"]["Default"]
    document["parameters"]["a"] = {"type": "number", "default": 12,
                                   "constraints": [{"range": {"max": 10}}]}  # fmt: skip
    with pytest.raises(ParameterError, match=r"Invalid default 12 \(12 is out of range"):
        validate_template(Template.from_document(document))


def test_invalid_templates_raise() -> None:
    document = {"heat_template_version": "2016-10-14",
                "resources": {"r": {"type": "OS::Heat::None", "depends_on": "zz"}}}  # fmt: skip
    with pytest.raises(TemplateError, match='reference "zz"'):
        validate_template(Template.from_document(document))
