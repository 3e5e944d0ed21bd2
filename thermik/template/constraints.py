"""Parameter constraints: ``range``, ``length``, ``modulo``, ``allowed_values``,
``allowed_pattern`` and ``custom_constraint``, with Heat's rules and messages.

A constraint is built from its template definition (:func:`build_constraint` for HOT,
:func:`cfn_constraints` for CFN's ``MinValue``/``AllowedValues``/... keys) and checks a
value with :meth:`Constraint.check`, which returns the reason a value is refused (the
constraint's ``description`` when it has one, as Heat reports it) or ``None``.

Custom constraints (``nova.flavor``, ``glance.image``, ...) need a cloud; the caller passes
them as a mapping of name to validator callable, so this module stays pure.
"""

from __future__ import annotations

import dataclasses
import json
import numbers
import re
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from thermik.errors import ParameterError

STRING, NUMBER, LIST, JSON, BOOLEAN = (
    "string",
    "number",
    "comma_delimited_list",
    "json",
    "boolean",
)

#: A custom constraint: answers why ``value`` is bad (``None`` when it is fine), or raises
#: ``ValueError`` (or a ThermikError) saying why.
CustomValidator = Callable[[Any], str | None]

TRUE_STRINGS = ("1", "t", "true", "on", "y", "yes")
FALSE_STRINGS = ("0", "f", "false", "off", "n", "no")


def to_number(value: Any) -> int | float:
    """A number from a number or its text, keeping int vs float as Heat does."""
    if isinstance(value, numbers.Number) and not isinstance(value, complex):
        return value  # type: ignore[return-value]
    try:
        return int(value)
    except ValueError:
        return float(value)


def to_bool(value: Any) -> bool:
    """``true/yes/on/y/t/1`` and ``false/no/off/n/f/0`` (any case), as oslo's strict parser."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in TRUE_STRINGS:
        return True
    if text in FALSE_STRINGS:
        return False
    accepted = ", ".join(f"'{s}'" for s in sorted(TRUE_STRINGS + FALSE_STRINGS))
    raise ValueError(f"Unrecognized value '{value}', acceptable values are: {accepted}")


def to_type(value: Any, ptype: str) -> Any:
    """``value`` in a parameter type's scalar form (for comparing allowed values)."""
    try:
        if ptype == NUMBER:
            return to_number(value)
        if ptype == STRING:
            return str(value)
        if ptype == BOOLEAN:
            return to_bool(value)
    except (TypeError, ValueError):
        raise ValueError(f'Value "{value}" is invalid for data type "{ptype}".') from None
    return value


@dataclasses.dataclass(frozen=True, slots=True)
class Constraint:
    """One constraint; subclasses define ``kind``, the types it applies to, and the test."""

    description: str | None

    kind: ClassVar[str] = ""
    heat_name: ClassVar[str] = ""
    types: ClassVar[frozenset[str]] = frozenset()

    def check(
        self, value: Any, ptype: str, validators: Mapping[str, CustomValidator] | None
    ) -> str | None:
        """Why ``value`` violates this constraint, or ``None`` if it does not."""
        try:
            reason = self.test(value, ptype, validators)
        except (TypeError, ValueError) as exc:
            reason = str(exc)
        if reason is None:
            return None
        return self.description or reason

    def test(
        self, value: Any, ptype: str, validators: Mapping[str, CustomValidator] | None
    ) -> str | None:
        raise NotImplementedError

    def as_data(self) -> Any:
        """The constraint's own definition (``{"min": 1}``, a pattern, ...)."""
        raise NotImplementedError


@dataclasses.dataclass(frozen=True, slots=True)
class Range(Constraint):
    """``range: {min, max}`` on numbers."""

    min: int | float | None = None
    max: int | float | None = None

    kind = "range"
    heat_name = "Range"
    types = frozenset({NUMBER})

    def test(self, value: Any, ptype: str, validators: Any) -> str | None:
        number = to_number(value)
        if (self.min is not None and number < self.min) or (
            self.max is not None and number > self.max
        ):
            return f"{value} is out of range (min: {self.min}, max: {self.max})"
        return None

    def as_data(self) -> Any:
        return {k: v for k, v in (("min", self.min), ("max", self.max)) if v is not None}


@dataclasses.dataclass(frozen=True, slots=True)
class Length(Range):
    """``length: {min, max}`` on strings, lists and JSON values."""

    kind = "length"
    heat_name = "Length"
    types = frozenset({STRING, LIST, JSON})

    def test(self, value: Any, ptype: str, validators: Any) -> str | None:
        size = len(value)
        if (self.min is not None and size < self.min) or (
            self.max is not None and size > self.max
        ):
            return f"length ({size}) is out of range (min: {self.min}, max: {self.max})"
        return None


@dataclasses.dataclass(frozen=True, slots=True)
class Modulo(Constraint):
    """``modulo: {step, offset}`` on numbers (2017-02-24)."""

    step: int = 1
    offset: int = 0

    kind = "modulo"
    heat_name = "Modulo"
    types = frozenset({NUMBER})

    def test(self, value: Any, ptype: str, validators: Any) -> str | None:
        if to_number(value) % self.step != self.offset:
            return f"{value} is not a multiple of {self.step} with an offset of {self.offset}"
        return None

    def as_data(self) -> Any:
        return {"step": self.step, "offset": self.offset}


@dataclasses.dataclass(frozen=True, slots=True)
class AllowedValues(Constraint):
    """``allowed_values: [...]``; every item of a list value must be allowed."""

    allowed: tuple[Any, ...] = ()

    kind = "allowed_values"
    heat_name = "AllowedValues"
    types = frozenset({STRING, NUMBER, BOOLEAN, LIST})

    def test(self, value: Any, ptype: str, validators: Any) -> str | None:
        if isinstance(value, list):
            ok = all(v in self.allowed for v in value)
        else:
            ok = to_type(value, ptype) in [to_type(a, ptype) for a in self.allowed]
        if ok:
            return None
        allowed = ", ".join(json.dumps(a) for a in self.allowed)
        return f"{json.dumps(value)} is not an allowed value [{allowed}]"

    def as_data(self) -> Any:
        return list(self.allowed)


@dataclasses.dataclass(frozen=True, slots=True)
class AllowedPattern(Constraint):
    """``allowed_pattern: regex``: the whole string must match."""

    pattern: str = ""

    kind = "allowed_pattern"
    heat_name = "AllowedPattern"
    types = frozenset({STRING})

    def test(self, value: Any, ptype: str, validators: Any) -> str | None:
        text = value if isinstance(value, str) else str(value)
        # Heat takes the first match and wants it to span the value (no backtracking into
        # longer alternatives, unlike re.fullmatch).
        match = re.match(self.pattern, text)
        if match is None or match.end() != len(text):
            return f'"{text}" does not match pattern "{self.pattern}"'
        return None

    def as_data(self) -> Any:
        return self.pattern


@dataclasses.dataclass(frozen=True, slots=True)
class CustomConstraint(Constraint):
    """``custom_constraint: name``: delegated to a validator the caller supplies."""

    name: str = ""

    kind = "custom_constraint"
    heat_name = "CustomConstraint"
    types = frozenset({STRING, NUMBER, BOOLEAN, LIST})

    def test(
        self, value: Any, ptype: str, validators: Mapping[str, CustomValidator] | None
    ) -> str | None:
        if validators is None:
            return None
        validator = validators.get(self.name)
        if validator is None:
            return f'"{value}" does not validate {self.name} (constraint not found)'
        try:
            reason = validator(value)
        except ValueError as exc:
            return str(exc) or f'"{value}" does not validate {self.name}'
        # A validator answers with its reason, as a resource property's does (the cloud's).
        return None if reason is None else f"Error validating value '{value}': {reason}"

    def as_data(self) -> Any:
        return self.name


def _number(value: Any, what: str) -> int | float | None:
    if value is None:
        return None
    try:
        return to_number(value)
    except (TypeError, ValueError):
        raise ParameterError(f"{what} must be numeric") from None


def _expect_map(value: Any, keys: tuple[str, ...], what: str) -> Mapping[Any, Any]:
    if not isinstance(value, Mapping):
        raise ParameterError(f"Invalid {what}, expected a mapping")
    for key in value:
        if key not in keys:
            raise ParameterError(f"Invalid key '{key}' for {what}")
    return value


def make_range(low: Any, high: Any, description: str | None, cls: type[Range]) -> Range:
    """A range or length constraint, checked as Heat checks them."""
    lo, hi = _number(low, "min/max"), _number(high, "min/max")
    if lo is None and hi is None:
        raise ParameterError(
            f"A {cls.kind} constraint must have a min value and/or a max value specified."
        )
    if cls is Length and any(v is not None and not isinstance(v, int) for v in (lo, hi)):
        raise ParameterError("min/max length must be integral")
    return cls(description, lo, hi)


def make_modulo(step: Any, offset: Any, description: str | None) -> Modulo:
    """A modulo constraint, checked as Heat checks it."""
    s, o = _number(step, "step/offset"), _number(offset, "step/offset")
    if s is None or o is None:
        raise ParameterError(
            "A modulo constraint must have a step value and an offset value specified."
        )
    if int(s) != s or int(o) != o:
        raise ParameterError("step/offset must be integer")
    s, o = int(s), int(o)
    if s == 0:
        raise ParameterError("step cannot be 0.")
    if abs(o) >= abs(s):
        raise ParameterError("offset must be smaller (by absolute value) than step.")
    if s * o < 0:
        raise ParameterError("step and offset must be both positive or both negative.")
    return Modulo(description, s, o)


def make_allowed_values(values: Any, description: str | None) -> AllowedValues:
    if not isinstance(values, list):
        raise ParameterError("AllowedValues must be a list")
    return AllowedValues(description, tuple(values))


def make_pattern(pattern: Any, description: str | None) -> AllowedPattern:
    if not isinstance(pattern, str):
        raise ParameterError("AllowedPattern must be a string")
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ParameterError(f"AllowedPattern {pattern!r} is not a valid regex: {exc}") from None
    return AllowedPattern(description, pattern)


HOT_CONSTRAINT_KEYS = (
    "description",
    "length",
    "range",
    "modulo",
    "allowed_values",
    "allowed_pattern",
    "custom_constraint",
)


def build_constraint(definition: Any, kinds: tuple[str, ...]) -> Constraint:
    """One HOT constraint from its definition; ``kinds`` are the version's, in Heat's order.

    A definition expresses one constraint: the first kind found wins, as in Heat.
    """
    definition = _expect_map(definition, HOT_CONSTRAINT_KEYS, "parameter constraints")
    description = definition.get("description")
    for kind in kinds:
        if kind in definition:
            return _build_kind(kind, definition[kind], description)
    raise ParameterError("No constraint expressed")


def _build_kind(kind: str, spec: Any, description: str | None) -> Constraint:
    if kind in ("range", "length"):
        spec = _expect_map(spec, ("min", "max"), f"{kind} constraint")
        cls = Range if kind == "range" else Length
        return make_range(spec.get("min"), spec.get("max"), description, cls)
    if kind == "modulo":
        spec = _expect_map(spec, ("step", "offset"), "modulo constraint")
        return make_modulo(spec.get("step"), spec.get("offset"), description)
    if kind == "allowed_values":
        return make_allowed_values(spec, description)
    if kind == "allowed_pattern":
        return make_pattern(spec, description)
    if not isinstance(spec, str):
        raise ParameterError("custom_constraint must be a string")
    return CustomConstraint(description, spec)


def cfn_constraints(schema: Mapping[str, Any]) -> list[Constraint]:
    """The constraints a CFN parameter expresses with ``MinValue``, ``AllowedValues``, ..."""
    description = schema.get("ConstraintDescription")
    found: list[Constraint] = []
    if "MinValue" in schema or "MaxValue" in schema:
        found.append(
            make_range(schema.get("MinValue"), schema.get("MaxValue"), description, Range)
        )
    if "MinLength" in schema or "MaxLength" in schema:
        low, high = schema.get("MinLength"), schema.get("MaxLength")
        found.append(make_range(low, high, description, Length))
    if "AllowedValues" in schema:
        found.append(make_allowed_values(schema["AllowedValues"], description))
    if "AllowedPattern" in schema:
        found.append(make_pattern(schema["AllowedPattern"], description))
    return found
