"""A template that exposes a resource type's properties as parameters (Heat's
``GET /resource_types/{type}/template``), in HOT or CFN."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from thermik.errors import InvalidInput

#: Property type -> (HOT parameter type, CFN parameter type).
_PARAMETER_TYPES = {
    "string": ("string", "String"),
    "integer": ("number", "Number"),
    "number": ("number", "Number"),
    "boolean": ("boolean", "String"),
    "map": ("json", "Json"),
    "list": ("comma_delimited_list", "CommaDelimitedList"),
}


def _parameter_types(schema: Mapping[str, Any]) -> tuple[str, str]:
    kind = str(schema.get("type"))
    item = (schema.get("schema") or {}).get("*") or {}
    if kind == "list" and item.get("type") in ("map", "list"):
        # A list of maps cannot be a comma-delimited string.
        return _PARAMETER_TYPES["map"]
    return _PARAMETER_TYPES.get(kind, _PARAMETER_TYPES["string"])


def _parameter(schema: Mapping[str, Any], hot: bool) -> dict[str, Any]:
    types = _parameter_types(schema)
    if hot:
        found: dict[str, Any] = {"type": types[0]}
        keys = ("description", "default")
    else:
        found = {"Type": types[1]}
        keys = ("Description", "Default")
    for key, target in zip(("description", "default"), keys, strict=True):
        if schema.get(key) is not None:
            found[target] = schema[key]
    return found


def type_template(described: Mapping[str, Any], template_type: str) -> dict[str, Any]:
    """The template of a type, from its ``Registry.describe`` document."""
    if template_type not in ("hot", "cfn"):
        raise InvalidInput(
            f"Template type {template_type} is not supported: use hot or cfn",
            path=("template_type",),
        )
    type_name = str(described["resource_type"])
    properties: Mapping[str, Any] = described["properties"]
    attributes: Mapping[str, Any] = described["attributes"]
    if template_type == "hot":
        return _hot(type_name, properties, attributes)
    return _cfn(type_name, properties, attributes)


def resource_name(type_name: str) -> str:
    """The name the template gives the type's resource: as Heat's, the type's last part
    (``TestResource`` for ``OS::Heat::TestResource``), which Heat's plugin classes are named."""
    return type_name.rsplit("::", 1)[-1]


def _hot(
    type_name: str, properties: Mapping[str, Any], attributes: Mapping[str, Any]
) -> dict[str, Any]:
    name = resource_name(type_name)
    return {
        "heat_template_version": "2016-10-14",
        "description": f"Initial template of {name}",
        "parameters": {key: _parameter(schema, True) for key, schema in properties.items()},
        "resources": {
            name: {
                "type": type_name,
                "properties": {key: {"get_param": key} for key in properties},
            }
        },
        "outputs": {
            key: {"description": schema.get("description"), "value": {"get_attr": [name, key]}}
            for key, schema in attributes.items()
        },
    }


def _cfn(
    type_name: str, properties: Mapping[str, Any], attributes: Mapping[str, Any]
) -> dict[str, Any]:
    name = resource_name(type_name)
    return {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Description": f"Initial template of {name}",
        "Parameters": {key: _parameter(schema, False) for key, schema in properties.items()},
        "Resources": {
            name: {"Type": type_name, "Properties": {key: {"Ref": key} for key in properties}}
        },
        "Outputs": {
            key: {
                "Description": schema.get("description"),
                "Value": {"Fn::GetAtt": [name, key]},
            }
            for key, schema in attributes.items()
        },
    }
