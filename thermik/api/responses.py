"""Writing responses: every body is JSON with ``Content-Type: application/json``, even ``null``.

heatclient ignores bodies of any other content type, so this is the only way bodies leave.
"""

from __future__ import annotations

import datetime
import json as jsonlib
from typing import Any

import falcon

JSON_TYPE = "application/json"


def isotime(value: datetime.datetime | None) -> str | None:
    """Heat's timestamp format, ``YYYY-MM-DDTHH:MM:SSZ`` in UTC (naive values are UTC)."""
    if value is None:
        return None
    if value.tzinfo is not None:
        value = value.astimezone(datetime.UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def _encode_extra(value: object) -> Any:
    if isinstance(value, datetime.datetime):
        return isotime(value)
    if isinstance(value, set | frozenset):
        return sorted(value, key=str)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def dumps(document: Any) -> str:
    """Encode ``document`` as JSON (timestamps in Heat's format)."""
    return jsonlib.dumps(document, default=_encode_extra, allow_nan=False)


def json(resp: falcon.Response, document: Any, *, status: int = 200) -> None:
    """Answer ``status`` with ``document`` as the JSON body."""
    resp.status = status
    resp.content_type = JSON_TYPE
    resp.text = dumps(document)


def empty(resp: falcon.Response, *, status: int) -> None:
    """Answer ``status`` without a body (202, 204)."""
    resp.status = status
    resp.text = None


def redirect(resp: falcon.Response, location: str) -> None:
    """Answer 302 to the absolute ``location``; clients re-send the same method and body."""
    resp.status = 302
    resp.location = location
    resp.text = None
