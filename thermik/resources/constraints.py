"""Value constraints of property schemas: length, range, modulo, allowed values and patterns,
and custom constraints looked up by name.

Each constraint answers :meth:`Constraint.check` with ``None`` (the value is fine) or the message
to report, worded as Heat words it (``0 is out of range (min: 1, max: 512)``); a constraint's
``description``, when given, replaces that message, as in Heat.
"""

from __future__ import annotations

import abc
import dataclasses
import json
import re
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from thermik.errors import PluginError

#: A custom constraint validator: ``None`` when the value is valid, else why it is not.
CustomValidator = Callable[[Any], str | None]

_NUMERIC = ("Integer", "Number")


def to_number(value: Any) -> int | float:
    """Convert a number or its string form the way Heat does: int first, then float.

    Raises:
        ValueError: the value is not a number.
    """
    if isinstance(value, int | float):
        return value
    if not isinstance(value, str):
        raise ValueError(f"Value '{value}' is not a number")
    try:
        return int(value)
    except ValueError:
        pass
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"Value '{value}' is not a number") from None


@dataclasses.dataclass(frozen=True, slots=True)
class Constraint(abc.ABC):
    """A restriction on a property value; ``description`` replaces the default message."""

    #: Property types (``Type`` values) this constraint applies to.
    valid_types: ClassVar[tuple[str, ...]] = ()
    #: The key naming the constraint in templates and in schema listings.
    key: ClassVar[str] = ""

    description: str | None = dataclasses.field(default=None, kw_only=True)

    def check(
        self, value: Any, type_name: str, custom: Mapping[str, CustomValidator] | None
    ) -> str | None:
        """Return ``None`` when ``value`` satisfies the constraint, else the message to report.

        ``type_name`` is the property's type; ``custom`` maps custom constraint names to their
        validators.
        """
        problem = self._problem(value, type_name, custom or {})
        if problem is None:
            return None
        return self.description or problem

    @abc.abstractmethod
    def _problem(
        self, value: Any, type_name: str, custom: Mapping[str, CustomValidator]
    ) -> str | None: ...

    @abc.abstractmethod
    def _body(self) -> Any: ...

    def as_dict(self) -> dict[str, Any]:
        """Render as the HOT constraint syntax (``{"range": {"min": 1}, "description": ...}``)."""
        out: dict[str, Any] = {self.key: self._body()}
        if self.description:
            out["description"] = self.description
        return out


def _bounds(minimum: int | float | None, maximum: int | float | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if minimum is not None:
        out["min"] = minimum
    if maximum is not None:
        out["max"] = maximum
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class Range(Constraint):
    """The value must lie within ``[min, max]`` (either bound may be absent)."""

    valid_types: ClassVar[tuple[str, ...]] = _NUMERIC
    key: ClassVar[str] = "range"

    min: int | float | None = None
    max: int | float | None = None

    def __post_init__(self) -> None:
        if self.min is None and self.max is None:
            raise PluginError("A range constraint must have a min value and/or a max value")

    def _problem(self, value: Any, type_name: str, custom: Mapping[str, Any]) -> str | None:
        number = to_number(value)
        if (self.min is not None and number < self.min) or (
            self.max is not None and number > self.max
        ):
            return f"{value} is out of range (min: {self.min}, max: {self.max})"
        return None

    def _body(self) -> Any:
        return _bounds(self.min, self.max)


@dataclasses.dataclass(frozen=True, slots=True)
class Length(Constraint):
    """The length of a string, list or map must lie within ``[min, max]``."""

    valid_types: ClassVar[tuple[str, ...]] = ("String", "List", "Map")
    key: ClassVar[str] = "length"

    min: int | None = None
    max: int | None = None

    def __post_init__(self) -> None:
        if self.min is None and self.max is None:
            raise PluginError("A length constraint must have a min value and/or a max value")

    def _problem(self, value: Any, type_name: str, custom: Mapping[str, Any]) -> str | None:
        length = len(value)
        if (self.min is not None and length < self.min) or (
            self.max is not None and length > self.max
        ):
            return f"length ({length}) is out of range (min: {self.min}, max: {self.max})"
        return None

    def _body(self) -> Any:
        return _bounds(self.min, self.max)


@dataclasses.dataclass(frozen=True, slots=True)
class Modulo(Constraint):
    """The value must equal ``offset`` modulo ``step``."""

    valid_types: ClassVar[tuple[str, ...]] = _NUMERIC
    key: ClassVar[str] = "modulo"

    step: int
    offset: int

    def __post_init__(self) -> None:
        if self.step == 0:
            raise PluginError("step cannot be 0.")
        if abs(self.offset) >= abs(self.step):
            raise PluginError("offset must be smaller (by absolute value) than step.")
        if self.step * self.offset < 0:
            raise PluginError("step and offset must be both positive or both negative.")

    def _problem(self, value: Any, type_name: str, custom: Mapping[str, Any]) -> str | None:
        if to_number(value) % self.step != self.offset:
            return f"{value} is not a multiple of {self.step} with an offset of {self.offset}"
        return None

    def _body(self) -> Any:
        return {"step": self.step, "offset": self.offset}


def _as_type(value: Any, type_name: str) -> Any:
    """Bring an allowed value to the property's type so "2" and 2 compare equal, as in Heat."""
    try:
        if type_name == "Integer":
            number = to_number(value)
            return number if isinstance(number, int) else value
        if type_name == "Number":
            return to_number(value)
        if type_name == "String":
            return str(value)
        if type_name == "Boolean" and isinstance(value, str):
            return {"true": True, "false": False}.get(value.lower(), value)
    except ValueError:
        return value
    return value


@dataclasses.dataclass(frozen=True, slots=True)
class AllowedValues(Constraint):
    """The value (or every item of a list value) must be one of ``values``."""

    valid_types: ClassVar[tuple[str, ...]] = ("String", "Integer", "Number", "Boolean", "List")
    key: ClassVar[str] = "allowed_values"

    values: tuple[Any, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", tuple(self.values))

    def _problem(self, value: Any, type_name: str, custom: Mapping[str, Any]) -> str | None:
        if isinstance(value, list):
            ok = all(item in self.values for item in value)
        else:
            ok = _as_type(value, type_name) in {_as_type(v, type_name) for v in self.values}
        if ok:
            return None
        allowed = ", ".join(json.dumps(v) for v in self.values)
        return f"{json.dumps(value)} is not an allowed value [{allowed}]"

    def _body(self) -> Any:
        return list(self.values)


@dataclasses.dataclass(frozen=True, slots=True)
class AllowedPattern(Constraint):
    """A string value must match ``pattern`` from its start to its end."""

    valid_types: ClassVar[tuple[str, ...]] = ("String",)
    key: ClassVar[str] = "allowed_pattern"

    pattern: str
    _compiled: re.Pattern[str] = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "_compiled", re.compile(self.pattern))
        except re.error as exc:
            raise PluginError(f"Invalid allowed_pattern {self.pattern!r}: {exc}") from None

    def _problem(self, value: Any, type_name: str, custom: Mapping[str, Any]) -> str | None:
        # Heat takes the first match from the start and demands it span the value; fullmatch
        # would accept more (it backtracks into longer alternatives).
        match = self._compiled.match(value)
        if match is not None and match.end() == len(value):
            return None
        return f'"{value}" does not match pattern "{self.pattern}"'

    def _body(self) -> Any:
        return self.pattern


@dataclasses.dataclass(frozen=True, slots=True)
class CustomConstraint(Constraint):
    """The value must satisfy the validator registered under ``name``.

    Custom constraints mostly ask a cloud service (``nova.flavor``, ``glance.image``). When no
    validator is registered for the name the value is accepted: the cloud-free engine cannot
    decide, and the resource's own action reports a bad value later.
    """

    valid_types: ClassVar[tuple[str, ...]] = ("String", "Integer", "Number", "Boolean", "List")
    key: ClassVar[str] = "custom_constraint"

    name: str

    def _problem(
        self, value: Any, type_name: str, custom: Mapping[str, CustomValidator]
    ) -> str | None:
        validator = custom.get(self.name)
        if validator is None:
            return None
        reason = validator(value)
        return None if reason is None else f"Error validating value '{value}': {reason}"

    def _body(self) -> Any:
        return self.name
