"""Function names a template probably misspelt (``get_parm`` for ``get_param``).

A one-key mapping whose key is not a function of the template's version is data, as in Heat,
so a typo in a function name is not an error by itself: it surfaces later as a value of the
wrong kind, far from its cause. These helpers find such keys that are close to a function the
version offers, so that a command can say which function was meant.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterator, Mapping
from typing import Any

from thermik.template.template import Template
from thermik.template.versions import VERSIONS

#: How alike a key and a function name must be (difflib's ratio) to be called a typo.
CUTOFF = 0.8


@dataclasses.dataclass(frozen=True, slots=True)
class Misspelling:
    """A key at ``path`` that is most likely the function ``meant``."""

    path: tuple[str, ...]
    written: str
    meant: str

    def __str__(self) -> str:
        where = ".".join(self.path)
        return (
            f"{where}: {self.written!r} is not a function of this template version, so it "
            f"is taken as data; did you mean {self.meant!r}?"
        )


def meant_function(name: str, functions: Mapping[str, Any]) -> str | None:
    """The function ``name`` is most likely a typo of (``None`` if it is one, or none is
    close)."""
    if name in functions:
        return None
    close = difflib.get_close_matches(name, list(functions), n=1, cutoff=CUTOFF)
    return close[0] if close else None


def misspelt_functions(template: Template) -> list[Misspelling]:
    """Every one-key mapping in the template's resources and outputs whose key looks like a
    misspelt function of its version."""
    functions = template.version.functions
    found: list[Misspelling] = []
    for section in ("resources", "outputs"):
        key = template.version.section(section)
        raw = template.data.get(key) if key else None
        if isinstance(raw, Mapping):
            for name, definition in raw.items():
                found.extend(_walk(definition, (str(key), str(name)), functions))
    return found


def _walk(
    value: Any, path: tuple[str, ...], functions: Mapping[str, Any]
) -> Iterator[Misspelling]:
    if isinstance(value, Mapping):
        if len(value) == 1:
            name = next(iter(value))
            meant = meant_function(name, functions) if isinstance(name, str) else None
            if meant is not None:
                yield Misspelling(path, name, meant)
        for key, item in value.items():
            yield from _walk(item, (*path, str(key)), functions)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, (*path, str(index)), functions)


def typo_hint(value: Any) -> str:
    """For a value of the wrong kind that is a one-key mapping named like a function of any
    template version: a sentence saying which function was meant (else ``""``)."""
    if not isinstance(value, Mapping) or len(value) != 1:
        return ""
    name = next(iter(value))
    if not isinstance(name, str):
        return ""
    meant = meant_function(name, _every_function())
    return f" ({name!r} is not a function: did you mean {meant!r}?)" if meant else ""


def _every_function() -> dict[str, None]:
    return {name: None for version in VERSIONS.values() for name in version.functions}
