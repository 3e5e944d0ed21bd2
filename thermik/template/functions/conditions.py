"""Condition functions (``equals``, ``not``, ``and``, ``or``) and the ``if`` macro.

Conditions only ever see parameters, so they are decided before the stack exists. ``if``
therefore picks its branch while the template is parsed and only the chosen branch is
parsed at all (as in Heat). The 2021-04-16 form may omit the false branch: a false
condition then yields :data:`~thermik.template.functions.base.NULL`, which removes the
enclosing item.
"""

from __future__ import annotations

from typing import Any

from thermik.errors import FunctionError
from thermik.template.functions.base import NULL, Function, Parser, Path, Resolver


def condition_value(value: Any, r: Resolver, path: Path) -> bool:
    """A resolved condition argument as a bool: a bool, or the value of a named condition."""
    if isinstance(value, bool):
        return value
    conditions = r.scope.conditions
    if conditions is None:
        raise FunctionError(f'Invalid condition "{value}"', path=path)
    return conditions.is_enabled(value, path)


class Equals(Function):
    """``equals: [a, b]``: whether the two resolved values are equal."""

    __slots__ = ()

    def check(self) -> None:
        if not isinstance(self.args, list) or len(self.args) != 2:
            raise self.error(f'Arguments to "{self.name}" must be of the form: [value_1, value_2]')

    def evaluate(self, r: Resolver) -> Any:
        return r.value(self.args[0]) == r.value(self.args[1])


class Not(Function):
    """``not: condition``: negation of a condition name, bool or condition function."""

    __slots__ = ()

    def operand(self) -> Any:
        return self.args

    def check(self) -> None:
        if self.args is None:
            raise self.error(f'Argument to "{self.name}" must be a condition')

    def evaluate(self, r: Resolver) -> Any:
        return not condition_value(r.value(self.operand()), r, self.path)


class And(Function):
    """``and: [c1, c2, ...]``: true when every condition is (stops at the first false)."""

    __slots__ = ()

    def check(self) -> None:
        if not isinstance(self.args, list):
            raise self.error(f'Arguments to "{self.name}" must be a list of conditions')
        if len(self.args) < 2:
            raise self.error(f'The minimum number of condition arguments to "{self.name}" is 2.')

    def evaluate(self, r: Resolver) -> Any:
        return all(condition_value(r.value(c), r, self.path) for c in self.args)


class Or(And):
    """``or: [c1, c2, ...]``: true when any condition is (stops at the first true)."""

    __slots__ = ()

    def evaluate(self, r: Resolver) -> Any:
        return any(condition_value(r.value(c), r, self.path) for c in self.args)


def _if_arguments(name: str, raw: Any, path: Path, nullable: bool) -> tuple[Any, Any, Any]:
    counts = (2, 3) if nullable else (3,)
    if not isinstance(raw, list) or len(raw) not in counts:
        raise FunctionError(
            f'Arguments to "{name}" must be of the form: '
            "[condition_name, value_if_true, value_if_false]",
            path=path,
        )
    return raw[0], raw[1], raw[2] if len(raw) == 3 else NULL


def _parse_if(name: str, raw: Any, path: Path, parser: Parser, nullable: bool) -> Any:
    condition, if_true, if_false = _if_arguments(name, raw, path, nullable)
    parsed = parser.parse_condition(condition, (*path, 0))
    chosen = condition_value(Resolver(parser.scope).value(parsed), Resolver(parser.scope), path)
    if chosen:
        return parser.parse(if_true, (*path, 1))
    if if_false is NULL:
        return NULL
    return parser.parse(if_false, (*path, 2))


def parse_if(name: str, raw: Any, path: Path, parser: Parser) -> Any:
    """``if: [condition, value_if_true, value_if_false]`` (2016-10-14, and ``Fn::If``)."""
    return _parse_if(name, raw, path, parser, nullable=False)


def parse_if_nullable(name: str, raw: Any, path: Path, parser: Parser) -> Any:
    """``if`` of 2021-04-16: the false branch may be omitted."""
    return _parse_if(name, raw, path, parser, nullable=True)
