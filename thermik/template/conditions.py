"""Named conditions (the ``conditions`` / ``Conditions`` section), evaluated on demand.

Every definition is parsed up front with the version's condition functions (so a bad one is
an error even if nothing uses it, as in Heat); each is evaluated at most once, and a
condition that (indirectly) refers to itself is an error naming it. A condition whose name is
not a string (an unquoted ``yes`` or ``off`` that YAML reads as a boolean) is an error, as the
template fails in Heat; a *reference* ``condition: yes`` is the boolean, as there.
"""

from __future__ import annotations

from typing import Any

from thermik.errors import FunctionError, TemplateError
from thermik.template.functions.base import Function, Parser, Path, Resolver, Scope
from thermik.template.template import Template

_IN_PROGRESS = object()


class Conditions:
    """The template's named conditions; implements the ``ConditionLookup`` protocol."""

    def __init__(self, template: Template, scope: Scope) -> None:
        self._scope = scope
        self._section = template.path("conditions")
        parser = Parser(scope)
        self._definitions: dict[Any, Any] = {}
        for name, raw in template.conditions().items():
            where = (*self._section, str(name))
            if not isinstance(name, str):
                # YAML reads an unquoted yes/no/on/off/true/false as a boolean; Heat fails on
                # such a name too (with a TypeError of its own).
                raise TemplateError(
                    f"The condition name {name!r} is not a string: a name such as yes, no, "
                    "on or off must be quoted, or YAML reads it as a boolean",
                    path=where,
                )
            parsed = parser.parse_condition(raw, where)
            if not isinstance(parsed, (bool, Function)):
                raise TemplateError(
                    f'The definition of condition "{name}" is invalid: {raw!r}', path=where
                )
            self._definitions[name] = parsed
        self._values: dict[Any, Any] = {}

    def is_enabled(self, condition: Any, path: Path) -> bool:
        """``condition`` (a bool or a condition name) evaluated; unknown names fail at ``path``."""
        if condition is None:
            return True
        if isinstance(condition, bool):
            return condition
        if not isinstance(condition, str) or condition not in self._definitions:
            raise FunctionError(f'Invalid condition "{condition}"', path=path)
        value = self._values.get(condition)
        if value is _IN_PROGRESS:
            raise TemplateError(
                f'Circular definition for condition "{condition}"',
                path=(*self._section, condition),
            )
        if value is None:
            self._values[condition] = _IN_PROGRESS
            try:
                value = self._evaluate(condition)
            finally:
                if self._values.get(condition) is _IN_PROGRESS:
                    del self._values[condition]
            self._values[condition] = value
        return bool(value)

    def _evaluate(self, name: str) -> bool:
        result = Resolver(self._scope).value(self._definitions[name])
        if not isinstance(result, bool):
            raise TemplateError(
                f'The definition of condition "{name}" is invalid: {result!r}',
                path=(*self._section, name),
            )
        return result
