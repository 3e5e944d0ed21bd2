"""The schemas of template resources, derived from their templates' parameters and outputs.

A template resource (``type: my_server.yaml`` or a registry alias to a template) is a nested
stack whose properties are the nested template's parameters and whose attributes are its
outputs, as in Heat.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from thermik.errors import PluginError, TemplateError
from thermik.resources.constraints import (
    AllowedPattern,
    AllowedValues,
    Constraint,
    CustomConstraint,
    Length,
    Modulo,
    Range,
)
from thermik.resources.schema import AttributeSchema, PropertySchema, Type

#: Parameter type (HOT and CFN spellings) -> the property type of a template resource.
_PARAMETER_TYPES = {
    "string": Type.STRING,
    "number": Type.NUMBER,
    "comma_delimited_list": Type.LIST,
    "json": Type.MAP,
    "boolean": Type.BOOLEAN,
    "String": Type.STRING,
    "Number": Type.NUMBER,
    "CommaDelimitedList": Type.LIST,
    "Json": Type.MAP,
    "Boolean": Type.BOOLEAN,
}


def template_resource_schema(
    parameters: Mapping[str, Any], defaulted: Collection[str] = ()
) -> dict[str, PropertySchema]:
    """The properties schema of a template resource, from its template's ``parameters``.

    Every property may be updated in place (the nested template decides what that means); one
    is required when its parameter has no default and is not ``defaulted`` (named by the
    environment's ``parameter_defaults``, which reach the nested stack as in Heat); a ``json``
    or ``comma_delimited_list``
    parameter also takes the string forms (``allow_conversion``). Unknown types become maps,
    as in Heat.

    Raises:
        TemplateError: a parameter definition or constraint is malformed.
    """
    return {
        name: _parameter_property(name, definition, defaulted=name in defaulted)
        for name, definition in parameters.items()
    }


def _parameter_property(name: str, definition: Any, *, defaulted: bool) -> PropertySchema:
    where = ("parameters", name)
    if not isinstance(definition, Mapping):
        raise TemplateError("parameter definition must be a map", path=where)
    param_type = definition.get("type", definition.get("Type"))
    prop_type = (
        _PARAMETER_TYPES.get(param_type, Type.MAP) if isinstance(param_type, str) else (Type.MAP)
    )
    default = definition.get("default", definition.get("Default"))
    try:
        return PropertySchema(
            prop_type,
            definition.get("description", definition.get("Description")),
            required=default is None and not defaulted,
            constraints=_constraints(definition),
            update_allowed=True,
            allow_conversion=prop_type in (Type.MAP, Type.LIST),
        )
    except (PluginError, TypeError, ValueError) as exc:
        message = exc.message if isinstance(exc, PluginError) else str(exc)
        raise TemplateError(f"invalid constraint: {message}", path=where) from None


def _constraints(definition: Mapping[str, Any]) -> tuple[Constraint, ...]:
    hot = definition.get("constraints")
    if hot is not None:
        if not isinstance(hot, list):
            raise ValueError("constraints must be a list")
        return tuple(_hot_constraint(item) for item in hot)
    return _cfn_constraints(definition)


def _hot_constraint(item: Any) -> Constraint:
    if not isinstance(item, Mapping):
        raise ValueError(f"constraint must be a map, not {item!r}")
    body = {k: v for k, v in item.items() if k != "description"}
    if len(body) != 1:
        raise ValueError(f"a constraint needs exactly one kind, got {sorted(body)}")
    ((kind, arg),) = body.items()
    description = item.get("description")
    if kind in ("length", "range"):
        if not isinstance(arg, Mapping):
            raise ValueError(f"{kind} takes a map of min and max")
        cls = Length if kind == "length" else Range
        return cls(arg.get("min"), arg.get("max"), description=description)
    if kind == "modulo" and isinstance(arg, Mapping):
        step, offset = arg.get("step"), arg.get("offset")
        if not isinstance(step, int) or not isinstance(offset, int):
            raise ValueError("a modulo constraint needs integer step and offset")
        return Modulo(step, offset, description=description)
    if kind == "allowed_values" and isinstance(arg, list):
        return AllowedValues(tuple(arg), description=description)
    if kind == "allowed_pattern" and isinstance(arg, str):
        return AllowedPattern(arg, description=description)
    if kind == "custom_constraint" and isinstance(arg, str):
        return CustomConstraint(arg, description=description)
    raise ValueError(f"unknown or malformed constraint {kind}")


def _cfn_constraints(definition: Mapping[str, Any]) -> tuple[Constraint, ...]:
    description = definition.get("ConstraintDescription")
    out: list[Constraint] = []
    if "MinLength" in definition or "MaxLength" in definition:
        low, high = definition.get("MinLength"), definition.get("MaxLength")
        out.append(Length(_int(low), _int(high), description=description))
    if "MinValue" in definition or "MaxValue" in definition:
        low, high = definition.get("MinValue"), definition.get("MaxValue")
        out.append(Range(_num(low), _num(high), description=description))
    if "AllowedValues" in definition:
        out.append(AllowedValues(tuple(definition["AllowedValues"]), description=description))
    if "AllowedPattern" in definition:
        out.append(AllowedPattern(definition["AllowedPattern"], description=description))
    return tuple(out)


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _num(value: Any) -> int | float | None:
    if value is None:
        return None
    number = float(value)
    return int(number) if number.is_integer() else number


def template_resource_attributes(outputs: Mapping[str, Any]) -> dict[str, AttributeSchema]:
    """The attributes schema of a template resource, from its template's ``outputs``."""
    out = {}
    for name, definition in outputs.items():
        description = None
        if isinstance(definition, Mapping):
            description = definition.get("description", definition.get("Description"))
        out[name] = AttributeSchema(description)
    return out
