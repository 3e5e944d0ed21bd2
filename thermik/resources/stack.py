"""Stacks as resources: ``OS::Heat::Stack`` and the schemas of template resources.

A template resource (``type: my_server.yaml`` or a registry alias to a template) is a nested
stack whose properties are the nested template's parameters and whose attributes are its
outputs; :func:`template_resource_schema` and :func:`template_resource_attributes` derive them
from the parameter and output sections, as Heat does. Running nested stacks arrives with the
engine; ``OS::Heat::Stack`` (in Heat, possibly on a remote Heat API) runs local child stacks
only.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any, ClassVar

import yaml

from thermik.errors import PluginError, PropertyError, TemplateError
from thermik.resources.constraints import (
    AllowedPattern,
    AllowedValues,
    Constraint,
    CustomConstraint,
    Length,
    Modulo,
    Range,
)
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.nested_services import NestedTemplate
from thermik.resources.nested_stack import NestedStackResource
from thermik.resources.plugin import Props
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    PropertiesSchema,
    PropertySchema,
    SupportStatus,
    Type,
)

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


class Stack(NestedStackResource):
    """``OS::Heat::Stack``: a child stack of its ``template``.

    Only local stacks are supported: a ``context`` naming a region or credentials (a remote
    Heat) is refused with a clear error.
    """

    properties_schema: ClassVar[PropertiesSchema] = {
        "context": PropertySchema(
            Type.MAP,
            "Where and how to reach the orchestration API.",
            schema={
                "region_name": PropertySchema(Type.STRING, "Region to create the stack in."),
                "credential_secret_id": PropertySchema(
                    Type.STRING,
                    "Barbican secret holding credentials for a remote cloud.",
                    update_allowed=True,
                    support_status=SupportStatus(version="12.0.0"),
                ),
                "ca_cert": PropertySchema(
                    Type.STRING,
                    "CA certificate to verify the API with.",
                    update_allowed=True,
                    support_status=SupportStatus(version="12.0.0"),
                ),
                "insecure": PropertySchema(
                    Type.BOOLEAN,
                    "Do not verify the API's certificate.",
                    default=False,
                    update_allowed=True,
                    support_status=SupportStatus(version="12.0.0"),
                ),
            },
            update_allowed=True,
        ),
        "template": PropertySchema(
            Type.STRING, "The template of the stack.", required=True, update_allowed=True
        ),
        "timeout": PropertySchema(
            Type.INTEGER,
            "Minutes to wait for the stack.",
            update_allowed=True,
            # The child's timeout is stored in a 32-bit column.
            constraints=(Range(min=1, max=2**31 - 1),),
        ),
        "parameters": PropertySchema(
            Type.MAP, "Parameters for the stack.", default={}, update_allowed=True
        ),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "stack_name": AttributeSchema("The stack's name.", type=AttributeType.STRING),
        "outputs": AttributeSchema("The stack's outputs.", type=AttributeType.MAP),
    }

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        """Refuse a remote stack and a template that is not a YAML or JSON mapping."""
        _refuse_remote(props)
        template = props.get("template")
        if isinstance(template, str) and not vctx.unresolved(template):
            _template_document(template)

    def check_local(self, ctx: ResourceContext, props: Props) -> None:
        """Refuse a remote stack."""
        _refuse_remote(props)

    def nested(self, ctx: ResourceContext, props: Props) -> NestedTemplate:
        """The ``template`` property with the ``parameters``."""
        parameters = props.get("parameters") or {}
        return NestedTemplate(
            _template_document(str(props.get("template"))),
            self.parent_files,
            {key: value for key, value in parameters.items() if value is not None},
            props.get("timeout"),
        )

    def reference_id(self, ctx: ResourceContext, props: Props) -> str | None:
        """The child stack's id (``None`` until created)."""
        return ctx.physical_id

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        """``stack_name`` and ``outputs`` of the child."""
        if name == "stack_name":
            state = self.child_state(ctx)
            return state.stack_name if state is not None else None
        if name == "outputs":
            return dict(self.child_outputs(ctx)) if ctx.physical_id is not None else None
        return None


def _refuse_remote(props: Props) -> None:
    context = props.get("context") or {}
    remote = [key for key in ("region_name", "credential_secret_id") if context.get(key)]
    if remote:
        raise PropertyError(
            "remote stacks are not supported: this engine only creates local nested stacks "
            f"(context sets {', '.join(remote)})",
            path=("properties", "context"),
        )


class _TemplateLoader(yaml.SafeLoader):
    """PyYAML's safe loader keeping dates as strings (``heat_template_version: 2021-04-16``),
    as Heat parses templates."""


_TemplateLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _template_document(text: str) -> dict[str, Any]:
    """The ``template`` property as a document (the engine checks it like any template)."""
    try:
        document = json.loads(text)
    except ValueError:
        try:
            document = yaml.load(text, Loader=_TemplateLoader)
        except yaml.YAMLError as exc:
            raise PropertyError(
                f"invalid template: {exc}", path=("properties", "template")
            ) from None
    if not isinstance(document, dict):
        raise PropertyError(
            "the template must be a YAML or JSON mapping", path=("properties", "template")
        )
    return document
