"""Reading the fields of one resource or output definition, as Heat reads them.

Each field is parsed with the version's functions and checked for its type; errors name the
field as the template spells it (``resources.web.depends_on`` in HOT,
``Resources.web.DependsOn`` in CFN).
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import repeat
from typing import Any

from thermik.errors import TemplateError
from thermik.template.functions.base import NULL, Function, Parser, Path, Resolver
from thermik.template.functions.base import contains_runtime as _contains_runtime


def _kind(value: Any) -> str:
    return "list" if isinstance(value, list) else type(value).__name__


class FieldReader:
    """Reads the canonical fields of one definition (``snippet`` has canonical keys)."""

    def __init__(
        self, parser: Parser, snippet: Mapping[str, Any], where: Path, spelling: Mapping[str, str]
    ) -> None:
        self.parser = parser
        self.snippet = snippet
        self.where = where
        self.spelling = spelling

    def path(self, field: str) -> Path:
        """Where ``field`` is, spelled as in the template."""
        return (*self.where, self.spelling.get(field, field))

    def parsed(self, field: str, *kinds: type) -> Any:
        """``field`` parsed (``None`` if absent), checked to be one of ``kinds`` or a function."""
        if field not in self.snippet:
            return None
        value = self.parser.parse(self.snippet[field], self.path(field))
        if value is NULL:
            return None
        if not isinstance(value, (*kinds, Function)):
            wanted = " or ".join("map" if k is dict else k.__name__ for k in kinds)
            raise TemplateError(
                f"{self.spelling.get(field, field)} must be a {wanted}, not a {_kind(value)}",
                path=self.path(field),
            )
        return value

    def type_name(self) -> str:
        """The literal type name (functions are not allowed there)."""
        value = self.snippet["type"]
        if not isinstance(value, str) or not value:
            raise TemplateError("the type must be a non-empty string", path=self.path("type"))
        return value

    def depends_on(self) -> tuple[str, ...]:
        """A resource name or a list of names (not parsed for functions)."""
        if "depends_on" not in self.snippet:
            return ()
        value = self.snippet["depends_on"]
        if isinstance(value, str):
            return (value,)
        if not isinstance(value, list) or not all(map(isinstance, value, repeat(str))):
            raise TemplateError(
                "must be a resource name or a list of resource names",
                path=self.path("depends_on"),
            )
        return tuple(dict.fromkeys(value))

    def description(self) -> str | None:
        value = self.snippet.get("description")
        if value is not None and not isinstance(value, str):
            raise TemplateError("the description must be a string", path=self.path("description"))
        return value

    def deletion_policy(self, policies: Mapping[str, str]) -> str | None:
        """The policy, canonical (``Delete``/``Retain``/``Snapshot``), or ``None``."""
        parsed = self.parsed("deletion_policy", str)
        if parsed is None:
            return None
        path = self.path("deletion_policy")
        if _contains_runtime(parsed):
            raise TemplateError("the deletion policy must not depend on resources", path=path)
        value = Resolver(self.parser.scope).value(parsed)
        if not isinstance(value, str) or value not in policies:
            raise TemplateError(
                f'Invalid deletion policy "{value}"; use one of: ' + ", ".join(policies),
                path=path,
            )
        return policies[value]

    def condition(self) -> Any:
        """The ``condition`` as written, parsed with the condition functions."""
        if "condition" not in self.snippet:
            return None
        path = self.path("condition")
        parsed = self.parser.parse_condition(self.snippet["condition"], path)
        if parsed is not None and not isinstance(parsed, (str, bool, Function)):
            raise TemplateError("the condition must be a condition name or a boolean", path=path)
        return parsed

    def enabled(self, condition: Any) -> bool:
        """Whether a parsed condition holds (no condition: always)."""
        if condition is None:
            return True
        scope = self.parser.scope
        value = Resolver(scope).value(condition)
        path = self.path("condition")
        if scope.conditions is None:
            if isinstance(value, bool):
                return value
            raise TemplateError(f'Invalid condition "{value}"', path=path)
        return scope.conditions.is_enabled(value, path)
