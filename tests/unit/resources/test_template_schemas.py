"""Template resources: properties from the nested template's parameters, attributes from its
outputs."""

from __future__ import annotations

from typing import Any

import pytest

from thermik.errors import PropertyError, TemplateError
from thermik.resources import (
    AllowedPattern,
    AllowedValues,
    CustomConstraint,
    Length,
    Modulo,
    Range,
    Type,
    validate_properties,
)
from thermik.resources.template_schemas import (
    template_resource_attributes,
    template_resource_schema,
)

HOT_PARAMETERS = {
    "flavor": {
        "type": "string",
        "description": "Flavor.",
        "constraints": [
            {"allowed_values": ["m1.small", "m1.large"], "description": "Pick a size."},
            {"custom_constraint": "nova.flavor"},
        ],
    },
    "count": {
        "type": "number",
        "default": 2,
        "constraints": [{"range": {"min": 1, "max": 9}}, {"modulo": {"step": 2, "offset": 0}}],
    },
    "names": {"type": "comma_delimited_list", "default": "a,b"},
    "extra": {"type": "json", "constraints": [{"length": {"max": 3}}]},
    "debug": {"type": "boolean", "default": False},
    "key": {"type": "string", "default": "k", "constraints": [{"allowed_pattern": "[a-z]+"}]},
}


def test_hot_parameters_become_properties() -> None:
    schema = template_resource_schema(HOT_PARAMETERS)
    assert {n: s.type for n, s in schema.items()} == {
        "flavor": Type.STRING,
        "count": Type.NUMBER,
        "names": Type.LIST,
        "extra": Type.MAP,
        "debug": Type.BOOLEAN,
        "key": Type.STRING,
    }
    assert schema["flavor"].required
    assert not schema["count"].required
    assert all(s.update_allowed for s in schema.values())
    assert all(s.default is None for s in schema.values())
    assert schema["names"].allow_conversion
    assert schema["extra"].allow_conversion
    assert not schema["flavor"].allow_conversion
    assert schema["flavor"].description == "Flavor."
    assert schema["flavor"].constraints == (
        AllowedValues(("m1.small", "m1.large"), description="Pick a size."),
        CustomConstraint("nova.flavor"),
    )
    assert schema["count"].constraints == (Range(1, 9), Modulo(2, 0))
    assert schema["extra"].constraints == (Length(max=3),)
    assert schema["key"].constraints == (AllowedPattern("[a-z]+"),)


def test_derived_schema_validates_property_values() -> None:
    schema = template_resource_schema(HOT_PARAMETERS)
    values = {"flavor": "m1.small", "names": "x,y", "extra": {"a": 1}}
    assert validate_properties(schema, values) == {
        "flavor": "m1.small",
        "count": None,
        "names": ["x", "y"],
        "extra": {"a": 1},
        "debug": None,
        "key": None,
    }
    with pytest.raises(PropertyError, match=r"^flavor: Pick a size\.$"):
        validate_properties(schema, {"flavor": "huge"})
    with pytest.raises(PropertyError, match="Property flavor not assigned"):
        validate_properties(schema, {})


def test_cfn_parameters_become_properties() -> None:
    schema = template_resource_schema(
        {
            "Size": {
                "Type": "Number",
                "MinValue": "1",
                "MaxValue": "10",
                "ConstraintDescription": "1 to 10",
            },
            "Name": {"Type": "String", "Default": "n", "MinLength": "1", "AllowedPattern": "n+"},
            "Zones": {"Type": "CommaDelimitedList", "AllowedValues": ["a", "b"]},
        }
    )
    assert schema["Size"].constraints == (Range(1, 10, description="1 to 10"),)
    assert schema["Name"].constraints == (Length(1), AllowedPattern("n+"))
    assert schema["Zones"].type is Type.LIST
    assert schema["Size"].required
    assert not schema["Name"].required


def test_unknown_parameter_types_become_maps() -> None:
    assert template_resource_schema({"p": {"type": "mystery"}})["p"].type is Type.MAP


@pytest.mark.parametrize(
    "definition",
    [
        "string",
        {"type": "string", "constraints": {"length": {"min": 1}}},
        {"type": "string", "constraints": [{"length": {"min": 1}, "range": {"min": 1}}]},
        {"type": "string", "constraints": [{"bogus": 1}]},
        {"type": "string", "constraints": [{"range": {"min": 1}}]},
        {"type": "number", "constraints": [{"modulo": {"step": 2}}]},
        {"type": "string", "constraints": [{"allowed_pattern": "("}]},
    ],
)
def test_malformed_parameters_are_template_errors(definition: Any) -> None:
    with pytest.raises(TemplateError) as info:
        template_resource_schema({"p": definition})
    assert str(info.value).startswith("parameters.p: ")


def test_outputs_become_attributes() -> None:
    attributes = template_resource_attributes(
        {"ip": {"description": "The address.", "value": 1}, "Cfn": {"Description": "D"}, "x": {}}
    )
    assert {n: a.description for n, a in attributes.items()} == {
        "ip": "The address.",
        "Cfn": "D",
        "x": None,
    }
