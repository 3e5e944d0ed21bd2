"""Typed fields of a decoded JSON request body; a wrong field is a 400 naming it.

The characters of every string were checked when the body was decoded
(:func:`thermik.api.admissible.check_document`); here each field is held to its type and to
the range or width of the column it is stored in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from thermik import errors
from thermik.api import admissible
from thermik.api.body import json_kind

_TRUE = frozenset({"true", "1", "yes", "on", "y", "t"})
_FALSE = frozenset({"false", "0", "no", "off", "n", "f"})


def _wrong(key: str, expected: str, value: object) -> errors.InvalidRequest:
    return errors.InvalidRequest(
        f"must be {expected}, not a JSON {json_kind(value)}", path=(key,), parameter=key
    )


def optional_string(
    body: Mapping[str, Any], key: str, *, max_length: int | None = None
) -> str | None:
    """A string (of at most ``max_length`` characters) or null."""
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise _wrong(key, "a string", value)
    if max_length is not None:
        admissible.check_length(value, key, max_length)
    return value


def required_string(body: Mapping[str, Any], key: str, *, max_length: int | None = None) -> str:
    """A non-empty string (of at most ``max_length`` characters)."""
    value = optional_string(body, key, max_length=max_length)
    if not value:
        raise errors.InvalidRequest("is required", path=(key,), parameter=key)
    return value


def mapping(body: Mapping[str, Any], key: str) -> dict[str, Any]:
    """An object; null or absent is ``{}``."""
    value = body.get(key)
    if value is None:
        return {}
    if isinstance(value, dict):
        return value
    raise _wrong(key, "an object", value)


def optional_mapping(body: Mapping[str, Any], key: str) -> dict[str, Any] | None:
    """An object, or None when null or absent."""
    return None if body.get(key) is None else mapping(body, key)


def document(body: Mapping[str, Any], key: str) -> dict[str, Any] | str | None:
    """A template or environment: an object, or JSON/YAML text; None when null or absent."""
    value = body.get(key)
    if value is None or isinstance(value, dict | str):
        return value
    raise _wrong(key, "an object or a string", value)


def string_map(body: Mapping[str, Any], key: str) -> dict[str, str]:
    """An object whose values are all strings (the files map)."""
    value = mapping(body, key)
    for name, content in value.items():
        if not isinstance(content, str):
            raise errors.InvalidRequest(
                f"must be a string, not a JSON {json_kind(content)}", path=(key, name)
            )
    return value


def string_list(body: Mapping[str, Any], key: str) -> tuple[str, ...]:
    """An array of strings; null or absent is empty."""
    value = body.get(key)
    if value is None:
        return ()
    if not isinstance(value, list):
        raise _wrong(key, "an array of strings", value)
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise errors.InvalidRequest(
                f"must be a string, not a JSON {json_kind(item)}", path=(key, index)
            )
    return tuple(value)


def object_list(body: Mapping[str, Any], key: str) -> tuple[dict[str, Any], ...]:
    """An array of objects; null or absent is empty."""
    value = body.get(key)
    if value is None:
        return ()
    if not isinstance(value, list):
        raise _wrong(key, "an array of objects", value)
    for index, item in enumerate(value):
        if not isinstance(item, dict):
            raise errors.InvalidRequest(
                f"must be an object, not a JSON {json_kind(item)}", path=(key, index)
            )
    return tuple(value)


def boolean(body: Mapping[str, Any], key: str) -> bool | None:
    """A boolean, or a string Heat accepts as one (``"true"``, ``"False"``); None if absent."""
    value = body.get(key)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise errors.InvalidRequest(
            f"must be a boolean, not {value!r}", path=(key,), parameter=key
        )
    raise _wrong(key, "a boolean", value)


def integer(body: Mapping[str, Any], key: str, *, minimum: int = 0) -> int | None:
    """An integer or an integer-like string, at least ``minimum`` and within a 32-bit column;
    None if absent."""
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise _wrong(key, "an integer", value)
    try:
        number = int(value)
    except ValueError:
        raise errors.InvalidRequest(
            f"must be an integer, not {value!r}", path=(key,), parameter=key
        ) from None
    return admissible.check_integer(number, key, minimum=minimum)


def tags(body: Mapping[str, Any], key: str = "tags") -> tuple[str, ...] | None:
    """Tags as heatclient (``"a,b"``), a list, or openstacksdk (``null``) send them; each fits
    the tag column."""
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        found = tuple(tag.strip() for tag in value.split(",") if tag.strip())
    elif isinstance(value, list) and all(isinstance(tag, str) for tag in value):
        found = tuple(value)
    else:
        raise _wrong(key, "a comma-separated string or an array of strings", value)
    for tag in found:
        admissible.check_length(tag, key, admissible.TAG_LENGTH)
    return found
