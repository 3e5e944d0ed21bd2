"""Template parameters: schemas, values coerced as Heat coerces them, pseudo parameters.

Values come from the user (``parameters``), else from the environment's
``parameter_defaults``, else from the schema's ``default``. :class:`Parameters` is a
mapping of name to *typed* value (a Number stays int or float, a Boolean is a bool, a
comma_delimited_list is a list of strings, a Json parameter is the parsed value), with the
pseudo parameters (``OS::stack_id``, ``AWS::StackName``, ...) included.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping
from typing import Any

from thermik.errors import ParameterError, ThermikError
from thermik.template import constraints as c
from thermik.template.context import Identity
from thermik.template.loader import load_document
from thermik.template.template import Template
from thermik.template.versions import TemplateVersion

HOT_TYPES = {
    "string": c.STRING,
    "number": c.NUMBER,
    "comma_delimited_list": c.LIST,
    "json": c.JSON,
    "boolean": c.BOOLEAN,
}
CFN_TYPES = {
    "String": c.STRING,
    "Number": c.NUMBER,
    "CommaDelimitedList": c.LIST,
    "Json": c.JSON,
    "Boolean": c.BOOLEAN,
}
#: How Heat's API names each type (validate output, stack parameter listings).
API_TYPES = {v: k for k, v in CFN_TYPES.items()}

HOT_PSEUDO = ("OS::stack_id", "OS::stack_name", "OS::region", "OS::project_id")
CFN_PSEUDO = ("AWS::StackId", "AWS::StackName", "AWS::Region")
#: Heat's fixed default for ``AWS::Region``.
CFN_DEFAULT_REGION = "ap-southeast-1"


@dataclasses.dataclass(frozen=True, slots=True)
class ParameterSchema:
    """A declared parameter: its type, default, constraints and presentation."""

    name: str
    type: str
    type_as_written: str
    description: str | None = None
    default: Any = None
    constraints: tuple[c.Constraint, ...] = ()
    hidden: bool = False
    label: str | None = None
    immutable: bool = False
    tags: tuple[Any, ...] = ()


def parse_schema(name: str, raw: Any, version: TemplateVersion) -> ParameterSchema:
    """Read one parameter declaration; errors say what is wrong (the caller adds the place)."""
    if not isinstance(raw, Mapping):
        raise ParameterError(f"Invalid parameter ({name}), expected a mapping", parameter=name)
    for key in raw:
        if key not in version.parameter_keys:
            raise ParameterError(f"Invalid key '{key}' for parameter ({name})", parameter=name)
    if version.is_hot:
        return _hot_schema(name, raw, version)
    return _cfn_schema(name, raw)


def _type(name: str, raw: Mapping[Any, Any], key: str, types: Mapping[str, str]) -> str:
    if key not in raw:
        raise ParameterError(f"Missing parameter type for parameter: {name}", parameter=name)
    written = raw[key]
    if not isinstance(written, str) or written not in types:
        raise ParameterError(
            f"Invalid type ({written}); use one of: " + ", ".join(types), parameter=name
        )
    return written


def _hot_schema(name: str, raw: Mapping[Any, Any], version: TemplateVersion) -> ParameterSchema:
    written = _type(name, raw, "type", HOT_TYPES)
    tags = raw.get("tags", [])
    if not isinstance(tags, list):
        raise ParameterError(f"Tags property should be a list for parameter: {name}")
    found = raw.get("constraints")
    if found is not None and not isinstance(found, list):
        raise ParameterError(
            f"Invalid parameter constraints for parameter {name}, expected a list",
            parameter=name,
        )
    built = tuple(c.build_constraint(d, version.constraint_kinds) for d in found or ())
    return ParameterSchema(
        name=name,
        type=HOT_TYPES[written],
        type_as_written=written,
        description=raw.get("description"),
        default=raw.get("default"),
        constraints=built,
        hidden=bool(raw.get("hidden", False)),
        label=raw.get("label"),
        immutable=bool(raw.get("immutable", False)),
        tags=tuple(tags),
    )


def _cfn_schema(name: str, raw: Mapping[Any, Any]) -> ParameterSchema:
    written = _type(name, raw, "Type", CFN_TYPES)
    return ParameterSchema(
        name=name,
        type=CFN_TYPES[written],
        type_as_written=written,
        description=raw.get("Description"),
        default=raw.get("Default"),
        constraints=tuple(c.cfn_constraints(raw)),
        hidden=str(raw.get("NoEcho", "false")).lower() == "true",
        label=raw.get("Label"),
    )


def parse_schemas(template: Template) -> dict[str, ParameterSchema]:
    """Every parameter the template declares, in template order."""
    schemas = {}
    for name, raw in template.parameters().items():
        where = template.path("parameters", str(name))
        if not isinstance(name, str):
            raise ParameterError("parameter names must be strings", path=where)
        try:
            schema = parse_schema(name, raw, template.version)
            check_schema(schema)
        except ThermikError as exc:
            raise exc.at(*where) from None
        schemas[name] = schema
    return schemas


def check_schema(schema: ParameterSchema) -> None:
    """Constraints must suit the type, and the default must satisfy them (custom ones aside)."""
    for constraint in schema.constraints:
        if schema.type not in constraint.types:
            raise ParameterError(
                f"{constraint.heat_name} constraint invalid for {schema.type_as_written}",
                parameter=schema.name,
            )
    if schema.default is None:
        return
    default = schema.default
    if schema.type == c.LIST:
        if isinstance(default, list):
            default = [str(x) for x in default]
        elif isinstance(default, str):
            default = default.split(",")
        else:
            raise ParameterError(
                "Default must be a comma-delimited list string", parameter=schema.name
            )
    for constraint in schema.constraints:
        if isinstance(constraint, c.CustomConstraint):
            continue
        reason = constraint.check(default, schema.type, None)
        if reason is not None:
            raise ParameterError(
                f"Invalid default {schema.default} ({reason})", parameter=schema.name
            )


def parse_value(schema: ParameterSchema, value: Any) -> Any:
    """``value`` converted to the parameter's type, as Heat converts it (``ValueError`` if not)."""
    if schema.type == c.STRING:
        return str(value)
    if schema.type == c.NUMBER:
        return c.to_number(value)
    if schema.type == c.BOOLEAN:
        return c.to_bool(value)
    if schema.type == c.LIST:
        if isinstance(value, list):
            return [str(x) for x in value]
        if not isinstance(value, str):
            raise ValueError(
                f"Value must be a comma-delimited list string: {type(value).__name__} given"
            )
        return value.split(",") if value else []
    text = value if isinstance(value, str) else json.dumps(value)
    if not text:
        return value
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ValueError(f"Value must be valid JSON: {exc}") from None


def check_value(
    schema: ParameterSchema, value: Any, validators: Mapping[str, c.CustomValidator] | None
) -> None:
    """Reject a value of the wrong type or violating a constraint (``ParameterError``)."""
    try:
        typed = parse_value(schema, value)
    except (TypeError, ValueError) as exc:
        raise ParameterError(str(exc), parameter=schema.name) from None
    subject = typed if schema.type in (c.LIST, c.JSON, c.STRING) else value
    for constraint in schema.constraints:
        reason = constraint.check(subject, schema.type, validators)
        if reason is not None:
            raise ParameterError(reason, parameter=schema.name)


@dataclasses.dataclass(frozen=True, slots=True)
class Parameter:
    """A parameter of a stack: its schema and where its value comes from."""

    schema: ParameterSchema
    user_value: Any = None
    user_default: Any = None
    pseudo: bool = False

    @property
    def name(self) -> str:
        return self.schema.name

    def has_default(self) -> bool:
        return self.user_default is not None or self.schema.default is not None

    def default(self) -> Any:
        """``parameter_defaults`` from the environment, else the schema's default."""
        return self.user_default if self.user_default is not None else self.schema.default

    def has_value(self) -> bool:
        return self.user_value is not None or self.has_default()

    def raw_value(self) -> Any:
        """The value as given (user value, else default), before type conversion."""
        if self.user_value is not None:
            return self.user_value
        if self.has_default():
            return self.default()
        raise ParameterError(f"The Parameter ({self.name}) was not provided.", parameter=self.name)


def _pseudo(name: str, default: str, description: str) -> Parameter:
    schema = ParameterSchema(name, c.STRING, "String", description, default)
    return Parameter(schema, pseudo=True)


def pseudo_parameters(version: TemplateVersion, identity: Identity) -> list[Parameter]:
    """Heat's pseudo parameters for ``identity`` (``OS::*`` for HOT, ``AWS::*`` for CFN)."""
    if not version.is_hot:
        found = [_pseudo("AWS::StackId", identity.arn(), "Stack ID")]
        if identity.stack_name:
            found.append(_pseudo("AWS::StackName", identity.stack_name, "Stack Name"))
            region = identity.region or CFN_DEFAULT_REGION
            found.append(_pseudo("AWS::Region", region, "Region"))
        return found
    found = [
        _pseudo("OS::stack_id", identity.stack_id, "Stack ID"),
        _pseudo("OS::project_id", identity.project_id, "Project ID"),
    ]
    if identity.stack_name:
        found.append(_pseudo("OS::stack_name", identity.stack_name, "Stack Name"))
    if identity.region:
        found.append(_pseudo("OS::region", identity.region, "Region"))
    return found


class Parameters(Mapping[str, Any]):
    """The parameters of one stack: a mapping of name to typed value.

    Only parameters that have a value are keys; :attr:`names` holds every declared name
    (pseudo parameters included) and :attr:`params` every :class:`Parameter`.
    """

    def __init__(
        self,
        schemas: Mapping[str, ParameterSchema],
        *,
        identity: Identity,
        version: TemplateVersion,
        user_params: Mapping[str, Any] | None = None,
        param_defaults: Mapping[str, Any] | None = None,
    ) -> None:
        user_params = user_params or {}
        param_defaults = param_defaults or {}
        self.user_params: Mapping[str, Any] = dict(user_params)
        self.section = version.section("parameters") or "parameters"
        params: dict[str, Parameter] = {p.name: p for p in pseudo_parameters(version, identity)}
        for name, schema in schemas.items():
            params[name] = Parameter(schema, user_params.get(name), param_defaults.get(name))
        self.params: Mapping[str, Parameter] = params
        self.names = frozenset(params)
        self._typed: dict[str, Any] = {}

    def check_user_parameters(self) -> None:
        """Every user-supplied parameter must be declared by the template."""
        for name in self.user_params:
            param = self.params.get(name)
            if param is None or param.pseudo:
                raise ParameterError(
                    f"The Parameter ({name}) was not defined in template.", parameter=name
                )

    def validate(self, validators: Mapping[str, c.CustomValidator] | None) -> None:
        """Check every value (types, constraints, custom constraints); missing is an error."""
        self.check_user_parameters()
        for name, param in self.params.items():
            try:
                check_value(param.schema, param.raw_value(), validators)
            except ThermikError as exc:
                raise exc.at(self.section, name) from None

    def __getitem__(self, name: str) -> Any:
        if name in self._typed:
            return self._typed[name]
        param = self.params[name]
        if not param.has_value():
            raise KeyError(name)
        try:
            typed = parse_value(param.schema, param.raw_value())
        except (TypeError, ValueError) as exc:
            raise ParameterError(str(exc), path=(self.section, name), parameter=name) from None
        self._typed[name] = typed
        return typed

    def __contains__(self, name: object) -> bool:
        param = self.params.get(name) if isinstance(name, str) else None
        return param is not None and param.has_value()

    def __iter__(self) -> Iterator[str]:
        return (n for n, p in self.params.items() if p.has_value())

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def user_facing(self) -> dict[str, Parameter]:
        """The template's own parameters (pseudo parameters left out), in template order."""
        return {n: p for n, p in self.params.items() if not p.pseudo}

    def immutable_changes(self, new: Parameters) -> list[str]:
        """Names of ``immutable`` parameters whose value ``new`` would change (for updates)."""
        changed = []
        for name, param in new.user_facing().items():
            old = self.params.get(name)
            if old is None or old.pseudo or not param.schema.immutable:
                continue
            if self.get(name) != new.get(name):
                changed.append(name)
        return changed


def parameter_types(template: Template) -> dict[str, str]:
    """Type of every parameter declared by the template or by any template in its files.

    Used to merge environment files (Heat merges only parameters some template declares);
    the template's own declarations win. Files that are not templates are skipped.
    """
    found: dict[str, str] = {}
    for text in template.files.values():
        try:
            nested = Template.from_document(load_document(text))
            found.update(_declared_types(nested))
        except ThermikError:
            continue
    found.update(_declared_types(template))
    return found


def _declared_types(template: Template) -> dict[str, str]:
    types = HOT_TYPES if template.version.is_hot else CFN_TYPES
    found = {}
    for name, raw in template.parameters().items():
        written = (
            raw.get("type" if template.version.is_hot else "Type")
            if isinstance(raw, Mapping)
            else None
        )
        if isinstance(name, str) and isinstance(written, str) and written in types:
            found[name] = types[written]
    return found
