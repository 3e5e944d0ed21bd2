"""Selecting inside a value by a path of keys and indices, as ``get_attr`` and ``get_param`` do."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def select_path(value: Any, path: Iterable[Any]) -> Any:
    """Follow ``path`` into ``value`` the way Heat selects from an attribute value.

    Each step indexes a mapping by key or a list (or string) by integer. Anything that cannot
    be followed (missing key, index out of range, wrong type) gives ``None``, never an error.
    """
    for key in path:
        if not isinstance(value, (dict, list, str)) or not isinstance(key, (str, int)):
            return None
        try:
            value = value[key]  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def select_parameter_path(value: Any, path: Iterable[Any]) -> Any:
    """Follow ``path`` into a parameter value as ``get_param`` does.

    Like :func:`select_path`, except that a string step into a list is read as an integer
    and a failed step gives ``""`` (Heat's choice for ``get_param``).
    """
    for step in path:
        key = step
        if not isinstance(value, (dict, list, str)) or not isinstance(key, (str, int)):
            return ""
        if isinstance(value, (list, str)) and isinstance(key, str):
            try:
                key = int(key)
            except ValueError:
                return ""
        try:
            value = value[key]
        except (KeyError, IndexError, TypeError):
            return ""
    return value
