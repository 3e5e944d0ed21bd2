"""Writing responses: every body is JSON with ``Content-Type: application/json``, even ``null``.

heatclient ignores bodies of any other content type, so this is the only way bodies leave.
"""

from __future__ import annotations

import datetime
import http
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


def status_document(status: int, message: str) -> dict[str, str]:
    """The small JSON body webob gives Heat's 202 and 302 answers (openstacksdk decodes it)."""
    title = http.HTTPStatus(status).phrase
    return {"code": f"{status} {title}", "title": title, "message": message}


def accepted(resp: falcon.Response) -> None:
    """Answer 202: the operation was started."""
    json(resp, status_document(202, "The request is accepted for processing."), status=202)


def no_content(resp: falcon.Response) -> None:
    """Answer 204 without a body."""
    resp.status = 204
    resp.text = None


def redirect(resp: falcon.Response, location: str) -> None:
    """Answer 302 to the absolute ``location``; clients re-send the same method and body."""
    message = f"The resource was found at {location}; you should be redirected automatically."
    json(resp, status_document(302, message), status=302)
    resp.location = location
