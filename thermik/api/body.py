"""Reading request bodies: size-limited, decoded as JSON, with errors that say what is wrong,
and holding only what a database can store (:mod:`thermik.api.admissible`)."""

from __future__ import annotations

import json
from typing import Any

import falcon

from thermik import errors
from thermik.api import admissible


def _reject_constant(name: str) -> Any:
    raise errors.InvalidRequest(f"The request body is not valid JSON: {name} is not a number")


def check_length(req: falcon.Request, limit: int) -> None:
    """Refuse a body whose declared length is over ``limit`` before reading it."""
    length = req.content_length
    if length is not None and length > limit:
        raise errors.RequestTooLarge(
            f"Request body of {length} bytes exceeds the limit of {limit} bytes"
        )


def read_json(req: falcon.Request, limit: int) -> Any:
    """The decoded JSON body, or None when the body is empty (or the literal ``null``)."""
    check_length(req, limit)
    raw = req.bounded_stream.read(limit + 1)
    if len(raw) > limit:
        raise errors.RequestTooLarge(f"Request body exceeds the limit of {limit} bytes")
    if not raw.strip():
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise errors.InvalidRequest(
            f"The request body is not UTF-8: invalid byte at position {exc.start}"
        ) from None
    try:
        document = json.loads(
            text, parse_constant=_reject_constant, parse_float=admissible.finite_float
        )
    except json.JSONDecodeError as exc:
        raise errors.InvalidRequest(
            f"The request body is not valid JSON: {exc.msg} at line {exc.lineno} "
            f"column {exc.colno}"
        ) from None
    except RecursionError:
        raise errors.InvalidRequest("The request body is nested too deeply") from None
    except ValueError as exc:
        raise errors.InvalidRequest(f"The request body is not valid JSON: {exc}") from None
    admissible.check_json(text, document)
    return document


def read_object(req: falcon.Request, limit: int, *, required: bool = True) -> dict[str, Any]:
    """The body as a JSON object; an absent body is ``{}`` unless ``required``."""
    document = read_json(req, limit)
    if document is None and not required:
        return {}
    if not isinstance(document, dict):
        kind = "empty" if document is None else f"a JSON {json_kind(document)}"
        raise errors.InvalidRequest(f"The request body must be a JSON object, not {kind}")
    return document


def json_kind(value: object) -> str:
    """The JSON name of a decoded value's type, for error messages."""
    match value:
        case None:
            return "null"
        case bool():
            return "boolean"
        case int() | float():
            return "number"
        case str():
            return "string"
        case list():
            return "array"
        case dict():
            return "object"
    return type(value).__name__
