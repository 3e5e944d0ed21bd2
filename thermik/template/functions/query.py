"""``yaql: {expression: ..., data: {...}}`` (2016-10-14): evaluate a YAQL expression.

Limits match Heat's defaults (200 elements per collection, 10000 bytes of memory), so an
expression that Heat refuses is refused here too.
"""

from __future__ import annotations

import collections.abc  # noqa: F401 - yaql 3 uses collections.abc without importing it
import functools
from collections.abc import Mapping
from typing import Any

from thermik.errors import ThermikError
from thermik.template.budget import Tally
from thermik.template.functions.base import Function, Resolver

LIMIT_ITERATORS = 200
MEMORY_QUOTA = 10000


def _new_parser() -> Any:
    import yaql  # noqa: PLC0415 - costly import, only for templates that use yaql

    return yaql.YaqlFactory().create(
        {"yaql.limitIterators": LIMIT_ITERATORS, "yaql.memoryQuota": MEMORY_QUOTA}
    )


#: Parsers not in use. A yaql (ply) parser keeps state while parsing, so each parse takes one
#: for itself; list.pop and list.append are atomic, so no lock is needed.
_IDLE_PARSERS: list[Any] = []


@functools.lru_cache(maxsize=512)
def _compile(expression: str) -> Any:
    """The compiled statement for ``expression`` (statements are immutable and shared)."""
    try:
        parser = _IDLE_PARSERS.pop()
    except IndexError:
        parser = _new_parser()
    try:
        return parser(expression)
    finally:
        _IDLE_PARSERS.append(parser)


@functools.cache
def _root_context() -> Any:
    import yaql  # noqa: PLC0415 - see _new_parser

    return yaql.create_context()


def _units(value: Any) -> int:
    """What one node of a yaql result adds to its size (its items count on their own)."""
    if isinstance(value, str):
        return len(value) + 2
    if isinstance(value, (Mapping, list, tuple, set, frozenset)):
        return 2 + len(value)
    return 8


def _finalizer(tally: Tally) -> Any:
    """yaql's ``#finalize`` (which turns the result into plain data) counting what it builds.

    yaql's memory quota weighs each value alone, so lists holding one list twice, nested,
    make a tree of billions of nodes out of a few bytes; converting it is refused as soon as
    the copy passes the value limit.
    """
    from yaql.language import specs, utils, yaqltypes  # noqa: PLC0415 - see _new_parser

    def counted(value: Any, limit_func: Any, engine: Any, rec: Any) -> Any:
        tally.add(_units(value))
        return utils.convert_output_data(value, limit_func, engine, rec)

    def finalize(obj: Any, limiter: Any, engine: Any) -> Any:
        return counted(obj, limiter, engine, counted)

    spec: Any = finalize
    for decorate in (
        specs.name("#finalize"),
        specs.inject("engine", yaqltypes.Engine()),
        specs.inject("limiter", yaqltypes.Delegate("#iter")),
    ):
        spec = decorate(spec)
    return spec


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    return value


class Yaql(Function):
    """Evaluates ``expression`` with ``$.data`` bound to the resolved ``data``."""

    __slots__ = ()

    def check(self) -> None:
        if not isinstance(self.args, dict):
            raise self.error(f'Arguments to "{self.name}" must be a map.')
        if "expression" not in self.args or set(self.args) - {"expression", "data"}:
            raise self.error(
                f'"{self.name}" syntax should be {self.name}: '
                "{expression: $.data.var1.sum(), data: {var1: [3, 2, 1]}}"
            )
        expression = self.args["expression"]
        if not isinstance(expression, Function):
            self.compile(expression)

    def compile(self, expression: Any) -> Any:
        if not isinstance(expression, str):
            raise self.error(f'The "expression" argument to {self.name} must contain a string.')
        try:
            return _compile(expression)
        except Exception as exc:
            raise self.error(f"Bad expression {exc}.") from None

    def evaluate(self, r: Resolver) -> Any:
        statement = self.compile(r.value(self.args["expression"]))
        data = r.value(self.args.get("data", {}))
        context = _root_context().create_child_context()
        context.register_function(_finalizer(Tally(r.meter, self)))
        try:
            result = statement.evaluate({"data": data}, context)
        except ThermikError:
            raise
        except Exception as exc:
            raise self.error(f"yaql evaluation failed: {type(exc).__name__}: {exc}") from None
        return _jsonable(result)
