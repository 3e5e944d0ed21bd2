"""Typed query-string parameters, tolerant of what real clients send.

heatclient repeats a parameter after a 302 (``resolve_outputs=False&resolve_outputs=False``) and
sends booleans as Python's ``True``/``False``: repeated keys are allowed (the last one wins for
single values) and booleans are case-insensitive. A malformed value is a 400 naming it.
"""

from __future__ import annotations

from collections.abc import Iterable

import falcon

from thermik import errors
from thermik.api import admissible
from thermik.api.boundary import SortDir


class Query:
    """The query parameters of one request."""

    def __init__(self, req: falcon.Request) -> None:
        self._params: dict[str, str | list[str]] = dict(req.params)

    def names(self) -> frozenset[str]:
        """The parameter names present."""
        return frozenset(self._params)

    def values(self, name: str) -> tuple[str, ...]:
        """Every value given for ``name``, in order."""
        value = self._params.get(name)
        if value is None:
            return ()
        return (value,) if isinstance(value, str) else tuple(value)

    def last(self, name: str) -> str | None:
        """The last value given for ``name``."""
        values = self.values(name)
        return values[-1] if values else None

    def csv(self, name: str) -> tuple[str, ...]:
        """Values of ``name`` split on commas (``tags=a,b`` or repeated), blanks dropped."""
        return tuple(
            part.strip()
            for value in self.values(name)
            for part in value.split(",")
            if part.strip()
        )

    def boolean(self, name: str, default: bool = False) -> bool:
        """``true``/``false`` in any case; anything else is a 400."""
        value = self.last(name)
        if value is None:
            return default
        text = value.strip().lower()
        if text == "true":
            return True
        if text == "false":
            return False
        raise errors.InvalidRequest(
            f"Unrecognized value {value!r} for {name}, acceptable values are: true, false",
            parameter=name,
        )

    def integer(self, name: str, *, minimum: int = 0) -> int | None:
        """An integer of at least ``minimum`` that fits 32 bits; None when absent."""
        value = self.last(name)
        if value is None:
            return None
        text = value.strip()
        if not (text.lstrip("-").isdigit() and text.isascii() and len(text) < 20):
            raise errors.InvalidRequest(
                f"Only integer is acceptable by {name!r}, not {value!r}", parameter=name
            )
        return admissible.check_integer(int(text), name, minimum=minimum)

    def sort_dir(self) -> SortDir | None:
        """``sort_dir``: asc or desc."""
        value = self.last("sort_dir")
        if value is None:
            return None
        try:
            return SortDir(value.strip().lower())
        except ValueError:
            raise errors.InvalidRequest(
                f"Unknown sort direction {value!r}, must be one of: asc, desc",
                parameter="sort_dir",
            ) from None

    def filters(self, allowed: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """The filter parameters among ``allowed`` that were given."""
        return {name: self.values(name) for name in allowed if name in self._params}

    def reject_unknown(self, allowed: Iterable[str]) -> None:
        """A 400 naming parameters outside ``allowed`` (where Heat is strict about them)."""
        unknown = sorted(self.names() - frozenset(allowed))
        if unknown:
            raise errors.InvalidRequest(
                "Invalid filter parameters " + ", ".join(repr(n) for n in unknown)
            )
