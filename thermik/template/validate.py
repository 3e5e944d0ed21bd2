"""What Heat's template-validate API returns for a template, environment and parameters.

The shape is Heat's ``POST /v1/{tenant}/validate`` body::

    {"Description": ..., "Parameters": {name: {"Type", "Description", "NoEcho", "Label",
     "Default"?, "Value"?, "Tags"?, "MinLength"/"MaxLength"/"MinValue"/"MaxValue"/"Step"/
     "Offset"/"AllowedValues"/"AllowedPattern"/"CustomConstraint"?,
     "ConstraintDescription"?}}, "ParameterGroups"?: [...], "Environment": {...}}

As in Heat, parameter values are not required and not checked against their constraints;
everything else is (an invalid template raises the error naming the place).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from thermik.template import constraints as c
from thermik.template.context import Identity
from thermik.template.definitions import StackDefinition, build_stack
from thermik.template.environment import Environment
from thermik.template.parameters import API_TYPES, Parameter
from thermik.template.registry import KnownTypes
from thermik.template.template import Template

#: The stack name Heat uses while validating a template.
VALIDATE_STACK_NAME = "dummy"


def validate_template(
    template: Template,
    environment: Environment | None = None,
    user_params: Mapping[str, Any] | None = None,
    *,
    known_types: KnownTypes | None = None,
) -> dict[str, Any]:
    """Validate and describe a template's parameters the way Heat's validate API does."""
    environment = environment or Environment()
    if user_params:
        # The API puts request parameters into the environment; Heat shows them there.
        params = {**environment.parameters, **user_params}
        environment = dataclasses.replace(environment, parameters=params)
    stack = build_stack(
        template,
        environment,
        None,
        Identity(stack_name=VALIDATE_STACK_NAME),
        known_types=known_types,
        strict=False,
    )
    result: dict[str, Any] = {
        "Description": template.description,
        "Parameters": {
            name: describe_parameter(param)
            for name, param in stack.parameters.user_facing().items()
        },
    }
    groups = template.raw_section("parameter_groups")
    if groups:
        result["ParameterGroups"] = groups
    result["Environment"] = with_template_types(environment.as_dict(), stack)
    return result


def with_template_types(environment: dict[str, Any], stack: StackDefinition) -> dict[str, Any]:
    """``environment`` with, as Heat's validate answers, a registry entry mapping each type
    that names a template file (``type: nested.yaml``) to that file."""
    registry = dict(environment.get("resource_registry") or {})
    for resource in stack.resources.values():
        if resource.resolved.is_template and resource.type not in registry:
            registry[resource.type] = resource.type
    return {**environment, "resource_registry": registry}


def describe_parameter(param: Parameter) -> dict[str, Any]:
    """One parameter as Heat's validate API shows it."""
    schema = param.schema
    out: dict[str, Any] = {
        "Type": API_TYPES[schema.type],
        "Description": schema.description or "",
        "NoEcho": "true" if schema.hidden else "false",
        "Label": schema.label or param.name,
    }
    if param.has_default():
        out["Default"] = param.default()
    if param.user_value:
        out["Value"] = param.user_value
    if schema.tags:
        out["Tags"] = list(schema.tags)
    descriptions = []
    for constraint in schema.constraints:
        out.update(_constraint_keys(constraint))
        if constraint.description:
            descriptions.append(constraint.description)
    if descriptions:
        out["ConstraintDescription"] = " ".join(descriptions)
    return out


def _constraint_keys(constraint: c.Constraint) -> dict[str, Any]:
    if isinstance(constraint, c.Range):
        low, high = ("MinLength", "MaxLength")
        if not isinstance(constraint, c.Length):
            low, high = ("MinValue", "MaxValue")
        found = {low: constraint.min, high: constraint.max}
        return {k: v for k, v in found.items() if v is not None}
    if isinstance(constraint, c.Modulo):
        return {"Step": constraint.step, "Offset": constraint.offset}
    if isinstance(constraint, c.AllowedValues):
        return {"AllowedValues": list(constraint.allowed)}
    if isinstance(constraint, c.AllowedPattern):
        return {"AllowedPattern": constraint.pattern}
    if isinstance(constraint, c.CustomConstraint):
        return {"CustomConstraint": constraint.name}
    return {}  # pragma: no cover - every constraint kind is handled above
