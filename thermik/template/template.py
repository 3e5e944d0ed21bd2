"""A template document with its version and files, checked at the level of sections.

:class:`Template` rejects unknown top-level sections and malformed resource and output
definitions, and presents resources and outputs with canonical (HOT, lower-case) keys so
the rest of the layer does not care whether the template was HOT or CFN.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from thermik.errors import TemplateError
from thermik.template.loader import DEFAULT_MAX_DEPTH, DEFAULT_MAX_SIZE, load_document
from thermik.template.versions import TemplateVersion, detect_version

_EMPTY: Mapping[str, Any] = MappingProxyType({})


def _type_name(value: Any) -> str:
    return "list" if isinstance(value, list) else type(value).__name__


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Template:
    """A parsed template: the raw document, its version and the files map it may read."""

    version: TemplateVersion
    data: Mapping[Any, Any]
    files: Mapping[str, str] = dataclasses.field(default_factory=dict)

    @classmethod
    def load(
        cls,
        text: str | bytes,
        files: Mapping[str, str] | None = None,
        *,
        max_size: int = DEFAULT_MAX_SIZE,
        max_depth: int = DEFAULT_MAX_DEPTH,
    ) -> Template:
        """Parse template text (JSON or YAML) and check its sections."""
        document = load_document(text, what="template", max_size=max_size, max_depth=max_depth)
        return cls.from_document(document, files)

    @classmethod
    def from_document(
        cls, document: Mapping[Any, Any], files: Mapping[str, str] | None = None
    ) -> Template:
        """Wrap an already parsed document after checking its version and sections."""
        if not isinstance(document, Mapping):
            raise TemplateError("The template is not a JSON object or YAML mapping.")
        version = detect_version(document)
        allowed = set(version.sections.values())
        for key in document:
            if key not in allowed:
                # Heat's words, which name the section (no path: clients compare the text).
                raise TemplateError(f"The template section is invalid: {key}")
        return cls(version, document, MappingProxyType(dict(files or {})))

    def raw_section(self, canonical: str) -> Any:
        """The raw value of a section (``None`` when absent or not in this version)."""
        key = self.version.section(canonical)
        return None if key is None else self.data.get(key)

    def mapping_section(self, canonical: str) -> Mapping[Any, Any]:
        """A section that must be a mapping; absent or empty means ``{}``."""
        value = self.raw_section(canonical)
        if not value:
            return _EMPTY
        if not isinstance(value, Mapping):
            key = self.version.section(canonical) or canonical
            raise TemplateError(f'"{key}" must be a map, not a {_type_name(value)}', path=(key,))
        return value

    @property
    def description(self) -> Any:
        """The template's description (``"No description"`` when absent, as in Heat)."""
        return self.raw_section("description") or "No description"

    def path(self, canonical: str, *rest: str | int) -> tuple[str | int, ...]:
        """The path of something in a section, with the section's key as written."""
        return (self.version.section(canonical) or canonical, *rest)

    def resources(self) -> dict[str, dict[str, Any]]:
        """Resource definitions with canonical keys (``type``, ``properties``, ...)."""
        return self._definitions("resources", "resource", self.version.resource_keys, "type")

    def outputs(self) -> dict[str, dict[str, Any]]:
        """Output definitions with canonical keys (``value``, ``description``, ``condition``)."""
        return self._definitions("outputs", "output", self.version.output_keys, "value")

    def _definitions(
        self, section: str, kind: str, keys: Mapping[str, str], required: str
    ) -> dict[str, dict[str, Any]]:
        found = {}
        for name, snippet in self.mapping_section(section).items():
            found[_name(name, self.path(section))] = self._definition(
                self.path(section, name), kind, snippet, keys, required
            )
        return found

    def _definition(
        self, where: tuple[str | int, ...], kind: str, snippet: Any, keys: Mapping[str, str],
        required: str,
    ) -> dict[str, Any]:  # fmt: skip
        written = next(k for k, v in keys.items() if v == required)
        if not snippet and kind == "resource":
            raise TemplateError(f"Each resource must contain a {written} key.", path=where)
        if not isinstance(snippet, Mapping):
            raise TemplateError(
                f"{_article(kind).capitalize()} {kind} definition must be a map, not a "
                f"{_type_name(snippet)}",
                path=where,
            )
        out: dict[str, Any] = {}
        for key, value in snippet.items():
            field = keys.get(key)
            if field is not None:
                out[field] = value
            elif self.version.strict_keys:
                raise TemplateError(
                    f'"{key}" is not a valid keyword inside {_article(kind)} {kind} definition',
                    path=(*where, str(key)),
                )
        if required not in out:
            raise TemplateError(
                f"Each {kind} definition must contain a {written} key.", path=where
            )
        return out

    def conditions(self) -> Mapping[Any, Any]:
        """The raw condition definitions (``{}`` for versions without conditions)."""
        value = self.raw_section("conditions")
        if value is None:
            return _EMPTY
        if not isinstance(value, Mapping):
            raise TemplateError(
                f"Condition definitions must be a map. Found a {_type_name(value)} instead",
                path=self.path("conditions"),
            )
        return value

    def mappings(self) -> Mapping[Any, Any]:
        """CFN ``Mappings`` (``{}`` for HOT)."""
        return self.mapping_section("mappings")

    def parameters(self) -> Mapping[Any, Any]:
        """The raw ``parameters`` section."""
        return self.mapping_section("parameters")


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _name(name: Any, where: tuple[str | int, ...]) -> str:
    if not isinstance(name, str):
        raise TemplateError(f"names must be strings, not {_type_name(name)} {name!r}", path=where)
    return name
