"""Check resource property values against a schema, with Heat's coercions and messages.

:func:`validate_properties` is what the template layer and the engine call: it rejects unknown
and missing properties, converts values the way Heat's ``Properties`` does (``"5"`` for an
Integer, ``"true"`` for a Boolean, ``12`` for a String, ``null`` for "use the default"), checks
nested list and map schemas and constraints, and returns every property of the schema with its
default filled in (``None`` where there is neither value nor default).

Values the caller cannot resolve yet (intrinsic function calls that need runtime data, such as
``get_attr`` of a resource not created yet) are recognised by the caller's ``unresolved``
predicate and passed through unchecked; the caller validates again once they are resolved.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from thermik.errors import PathElement, PropertyError
from thermik.resources.constraints import CustomValidator, Length, to_number
from thermik.resources.schema import PropertiesSchema, PropertySchema, Type

Unresolved = Callable[[Any], bool]


def never_unresolved(value: Any) -> bool:
    """The ``unresolved`` predicate for fully resolved values."""
    return False


def validate_properties(
    schema: PropertiesSchema,
    values: Mapping[str, Any] | None,
    *,
    unresolved: Unresolved = never_unresolved,
    custom_constraints: Mapping[str, CustomValidator] | None = None,
    path: Sequence[PathElement] = (),
) -> dict[str, Any]:
    """Check ``values`` against ``schema`` and return the coerced values with defaults filled.

    Args:
        schema: property name -> schema.
        values: the properties as written (``None`` means none were given).
        unresolved: True for a value that must not be checked yet (a function call).
        custom_constraints: custom constraint name -> validator; unknown names are not checked.
        path: where the properties are, prefixed to error paths
            (``("resources", "web", "properties")``).

    Returns:
        Every property named by ``schema``, in schema order.

    Raises:
        PropertyError: the first problem found, with the path of the offending value.
    """
    checker = _Checker(unresolved, custom_constraints or {})
    if values is None:
        values = {}
    elif not isinstance(values, Mapping):
        raise PropertyError(f'"{values}" is not a map', path=path)
    return checker.properties(schema, values, tuple(path))


class _Checker:
    """One validation run: carries the caller's predicate and validators down the tree."""

    def __init__(self, unresolved: Unresolved, custom: Mapping[str, CustomValidator]) -> None:
        self.unresolved = unresolved
        self.custom = custom

    def properties(
        self,
        schema: PropertiesSchema,
        values: Mapping[str, Any],
        path: tuple[PathElement, ...],
    ) -> dict[str, Any]:
        for key in values:
            if key not in schema:
                raise PropertyError(f"Unknown Property {key}", path=path)
        out: dict[str, Any] = {}
        for key, prop in schema.items():
            if key in values:
                if not prop.implemented:
                    raise PropertyError(f"Property {key} not implemented yet", path=path)
                out[key] = self.value(prop, values[key], (*path, key))
            elif prop.default is not None:
                out[key] = self.value(prop, None, (*path, key))
            elif prop.required:
                raise PropertyError(f"Property {key} not assigned", path=path)
            else:
                out[key] = None
        return out

    def value(self, prop: PropertySchema, raw: Any, path: tuple[PathElement, ...]) -> Any:
        """Coerce one value to its schema type and check its constraints."""
        if self.unresolved(raw):
            return raw
        try:
            coerced = self._coerce(prop, raw, path)
        except ValueError as exc:
            raise PropertyError(str(exc), path=path) from None
        self._constrain(prop, coerced, path)
        return coerced

    def _coerce(self, prop: PropertySchema, raw: Any, path: tuple[PathElement, ...]) -> Any:
        kind = prop.type
        if kind is Type.ANY:
            return prop.default if raw is None else raw
        if raw is None:
            # An explicit null means "not given": the default, else the type's empty value.
            raw = prop.default if prop.default is not None else _EMPTY[kind]
        if kind is Type.MAP:
            return self._map(prop, raw, path)
        if kind is Type.LIST:
            return self._list(prop, raw, path)
        return _SCALARS[kind](raw)

    def _map(self, prop: PropertySchema, raw: Any, path: tuple[PathElement, ...]) -> Any:
        if not isinstance(raw, Mapping):
            if prop.allow_conversion and isinstance(raw, str):
                return raw
            if prop.allow_conversion and isinstance(raw, Sequence):
                return json.dumps(raw)
            raise ValueError(f'"{raw}" is not a map')
        entries = prop.entry_schemas
        if entries is None:
            return dict(raw)
        return self.properties(entries, raw, path)

    def _list(self, prop: PropertySchema, raw: Any, path: tuple[PathElement, ...]) -> Any:
        if prop.allow_conversion and isinstance(raw, str):
            raw = raw.split(",") if raw else []
        if not isinstance(raw, Sequence) or isinstance(raw, str | bytes):
            raise ValueError(f'"{raw!r}" is not a list')
        item = prop.item_schema
        if item is None:
            return list(raw)
        return [self.value(item, v, (*path, i)) for i, v in enumerate(raw)]

    def _constrain(self, prop: PropertySchema, value: Any, path: tuple[PathElement, ...]) -> None:
        if not prop.constraints:
            return
        # Parts still unresolved cannot be judged; only the length of the whole is known.
        partial = self._contains_unresolved(value)
        for constraint in prop.constraints:
            if partial and not isinstance(constraint, Length):
                continue
            problem = constraint.check(value, prop.type.value, self.custom)
            if problem is not None:
                raise PropertyError(problem, path=path)

    def _contains_unresolved(self, value: Any) -> bool:
        if self.unresolved(value):
            return True
        if isinstance(value, Mapping):
            return any(self._contains_unresolved(v) for v in value.values())
        if isinstance(value, list):
            return any(self._contains_unresolved(v) for v in value)
        return False


def _string(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int):
        return str(value)
    raise ValueError(f"Value must be a string; got {value!r}")


def _integer(value: Any) -> int:
    # Heat truncates floats (int(2.7) == 2) and accepts booleans; kept for compatibility.
    if isinstance(value, int | float):
        return int(value)
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            pass
    raise ValueError(f"Value '{value}' is not an integer")


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        normalised = value.lower()
        if normalised in ("true", "false"):
            return normalised == "true"
        raise ValueError(f'"{normalised}" is not a valid boolean')
    raise ValueError(f'"{value}" is not a valid boolean')


_SCALARS: dict[Type, Callable[[Any], Any]] = {
    Type.STRING: _string,
    Type.INTEGER: _integer,
    Type.NUMBER: to_number,
    Type.BOOLEAN: _boolean,
}
_EMPTY: dict[Type, Any] = {
    Type.STRING: "",
    Type.INTEGER: 0,
    Type.NUMBER: 0,
    Type.BOOLEAN: False,
    Type.MAP: {},
    Type.LIST: [],
}
