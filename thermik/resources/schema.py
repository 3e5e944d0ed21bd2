"""Declarative schemas for resource properties and attributes, shaped like Heat's.

A plugin declares ``properties_schema`` as a mapping of property name to :class:`PropertySchema`
and ``attributes_schema`` as a mapping of attribute name to :class:`AttributeSchema`. Values are
checked against them by :func:`thermik.resources.properties.validate_properties`. Constraints live
in :mod:`thermik.resources.constraints`.

A schema that contradicts itself (a constraint that cannot apply to its type, a default that
violates its own constraints, ``update_allowed`` together with ``immutable``) is a bug in the
plugin that declares it and raises :class:`~thermik.errors.PluginError` when the class is defined.
"""

from __future__ import annotations

import dataclasses
import enum
import types
from collections.abc import Mapping
from typing import Any

from thermik.errors import PluginError
from thermik.resources.constraints import Constraint, CustomConstraint


class Type(enum.StrEnum):
    """The data type of a property, spelled as Heat spells it in resource-type listings."""

    STRING = "String"
    INTEGER = "Integer"
    NUMBER = "Number"
    BOOLEAN = "Boolean"
    MAP = "Map"
    LIST = "List"
    ANY = "Any"


class AttributeType(enum.StrEnum):
    """The declared type of an attribute value (informational, as in Heat)."""

    STRING = "String"
    MAP = "Map"
    LIST = "List"
    INTEGER = "Integer"
    BOOLEAN = "Boolean"


class CacheMode(enum.StrEnum):
    """Whether an attribute value may be cached once resolved (``cache_local``) or not."""

    LOCAL = "cache_local"
    NONE = "cache_none"


class SupportLevel(enum.StrEnum):
    """How supported a type, property or attribute is; HIDDEN ones are not listed."""

    UNKNOWN = "UNKNOWN"
    SUPPORTED = "SUPPORTED"
    DEPRECATED = "DEPRECATED"
    UNSUPPORTED = "UNSUPPORTED"
    HIDDEN = "HIDDEN"


@dataclasses.dataclass(frozen=True, slots=True)
class SupportStatus:
    """The support status of a resource type, property or attribute, with its history."""

    status: SupportLevel = SupportLevel.SUPPORTED
    version: str | None = None
    message: str | None = None
    previous: SupportStatus | None = None

    def as_dict(self) -> dict[str, Any]:
        """Render as Heat's API does (status, message, version, previous_status)."""
        return {
            "status": self.status.value,
            "message": self.message,
            "version": self.version,
            "previous_status": self.previous.as_dict() if self.previous else None,
        }


SUPPORTED = SupportStatus()


@dataclasses.dataclass(frozen=True, slots=True)
class PropertySchema:
    """The schema of one property (or of one nested list item or map entry).

    ``schema`` nests: for a LIST it is the :class:`PropertySchema` of every item, for a MAP a
    mapping of key to :class:`PropertySchema` (a map with such a schema accepts only those keys).
    ``allow_conversion`` lets a MAP accept a string or a list (serialised to JSON) and a LIST
    accept a comma-delimited string; Heat uses it for template-resource properties derived from
    ``json`` and ``comma_delimited_list`` parameters.
    """

    type: Type
    description: str | None = None
    _: dataclasses.KW_ONLY
    default: Any = None
    schema: PropertySchema | Mapping[str, PropertySchema] | None = None
    required: bool = False
    constraints: tuple[Constraint, ...] = ()
    update_allowed: bool = False
    immutable: bool = False
    implemented: bool = True
    support_status: SupportStatus = SUPPORTED
    allow_conversion: bool = False
    #: The value is a secret (a password, a key, a signed URL): never stored in clear.
    secret: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.schema, Mapping):
            object.__setattr__(self, "schema", types.MappingProxyType(dict(self.schema)))
        object.__setattr__(self, "constraints", tuple(self.constraints))
        self._check()

    @property
    def item_schema(self) -> PropertySchema | None:
        """The schema of every item of a LIST, if declared."""
        return self.schema if isinstance(self.schema, PropertySchema) else None

    @property
    def entry_schemas(self) -> Mapping[str, PropertySchema] | None:
        """The schemas of the keys of a MAP, if declared."""
        return self.schema if isinstance(self.schema, Mapping) else None

    def _check(self) -> None:
        if self.update_allowed and self.immutable:
            raise PluginError("Options update_allowed and immutable cannot both be True")
        if isinstance(self.schema, PropertySchema) and self.type is not Type.LIST:
            raise PluginError(f"Single schema valid only for List, not {self.type}")
        if isinstance(self.schema, Mapping) and self.type not in (Type.LIST, Type.MAP):
            raise PluginError(f"Schema valid only for List or Map, not {self.type}")
        if isinstance(self.schema, Mapping) and self.type is Type.LIST:
            raise PluginError("A List takes a single item schema, not a mapping")
        for constraint in self.constraints:
            if self.type.value not in constraint.valid_types:
                name = type(constraint).__name__
                raise PluginError(f"{name} constraint invalid for {self.type}")
        if self.default is not None:
            self._check_default()

    def _check_default(self) -> None:
        for constraint in self.constraints:
            if isinstance(constraint, CustomConstraint):
                continue
            problem = constraint.check(self.default, self.type.value, None)
            if problem is not None:
                raise PluginError(f"Invalid default {self.default} ({problem})")

    def as_dict(self) -> dict[str, Any]:
        """Render as Heat's resource-type schema API does."""
        out: dict[str, Any] = {"type": self.type.value.lower()}
        if self.description is not None:
            out["description"] = self.description
        if self.default is not None:
            out["default"] = self.default
        if isinstance(self.schema, PropertySchema):
            out["schema"] = {"*": self.schema.as_dict()}
        elif self.schema is not None:
            out["schema"] = {k: s.as_dict() for k, s in self.schema.items()}
        out["required"] = self.required
        if self.constraints:
            out["constraints"] = [c.as_dict() for c in self.constraints]
        out["update_allowed"] = self.update_allowed
        out["immutable"] = self.immutable
        return out


@dataclasses.dataclass(frozen=True, slots=True)
class AttributeSchema:
    """The schema of one attribute a resource exposes through ``get_attr``."""

    description: str | None = None
    _: dataclasses.KW_ONLY
    type: AttributeType | None = None
    cache_mode: CacheMode = CacheMode.LOCAL
    support_status: SupportStatus = SUPPORTED
    #: The value is a secret (a generated password, a signed URL): never stored in clear.
    secret: bool = False

    def as_dict(self) -> dict[str, Any]:
        """Render as Heat's resource-type schema API does."""
        out: dict[str, Any] = {}
        if self.description is not None:
            out["description"] = self.description
        if self.type is not None:
            out["type"] = self.type.value.lower()
        return out


PropertiesSchema = Mapping[str, PropertySchema]
AttributesSchema = Mapping[str, AttributeSchema]


def declared_secrets(
    properties: PropertiesSchema, attributes: AttributesSchema, values: Mapping[str, Any]
) -> list[tuple[str, str]]:
    """Where a resource with these schemas and property ``values`` holds secrets:
    ``("properties", name)`` of each secret property given a value, ``("attributes", name)``
    of each secret attribute (stored once the resource completes)."""
    found = [
        ("properties", name)
        for name, schema in properties.items()
        if schema.secret and values.get(name) is not None
    ]
    found += [("attributes", name) for name, schema in attributes.items() if schema.secret]
    return found


#: The attribute every resource has: its live state, as the plugin reports it.
SHOW_ATTRIBUTE = "show"
BASE_ATTRIBUTES: AttributesSchema = types.MappingProxyType(
    {
        SHOW_ATTRIBUTE: AttributeSchema(
            "Detailed information about the resource.",
            type=AttributeType.MAP,
            cache_mode=CacheMode.NONE,
        )
    }
)


def update_allowed_names(schema: PropertiesSchema) -> frozenset[str]:
    """Names of the properties that may change without replacing the resource."""
    return frozenset(name for name, prop in schema.items() if prop.update_allowed)


def immutable_names(schema: PropertiesSchema) -> frozenset[str]:
    """Names of the properties that may never change once the resource exists."""
    return frozenset(name for name, prop in schema.items() if prop.immutable)
