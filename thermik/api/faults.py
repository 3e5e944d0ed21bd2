"""Errors to HTTP: every failure leaves the API as Heat's error document, never a traceback.

Heat's fault middleware answers::

    {"code": 404, "title": "Not Found", "explanation": "...",
     "error": {"type": "EntityNotFound", "message": "...", "traceback": null}}

heatclient prints ``error.message`` and maps ``code`` to its exception classes, so the message is
always present. The status and type come from the error class (``http_status``/``heat_type``).

What a client is told never holds internals: a database error reaches it as a generic message
(its text names the database URL, host and user), the details go to the log. A client's
mistake (a 4xx) is one line at INFO; only a bug (an exception outside the error tree) is logged
with its traceback.
"""

from __future__ import annotations

import http
import logging
import re
from typing import Any

import falcon

from thermik import errors
from thermik.api import responses

LOG = logging.getLogger(__name__)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

#: What a client is told of any database failure; the log has the real one.
DATABASE_MESSAGE = "The server cannot use its database right now; try again later."

_EXPLANATIONS = {
    400: "The server could not comply with the request since it is either malformed or "
    "otherwise incorrect.",
    401: "This server could not verify that you are authorized to access the document you "
    "requested.",
    403: "Access was denied to this resource.",
    404: "The resource could not be found.",
    405: "The method is not allowed for this resource.",
    409: "There was a conflict when trying to complete your request.",
    413: "The request is larger than the server is willing or able to process.",
    500: "The server has either erred or is incapable of performing the requested operation.",
    503: "The server is currently unavailable. Please try again at a later time.",
}


def status_title(status: int) -> str:
    """The reason phrase of ``status`` (``Not Found``)."""
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def error_document(status: int, heat_type: str, message: str) -> dict[str, Any]:
    """Heat's error body for ``status``."""
    title = status_title(status)
    return {
        "code": status,
        "title": title,
        "explanation": _EXPLANATIONS.get(status, title),
        "error": {"type": heat_type, "message": message, "traceback": None},
    }


def _render(resp: falcon.Response, status: int, heat_type: str, message: str) -> None:
    responses.json(resp, error_document(status, heat_type, message), status=status)


def _one_line(text: str) -> str:
    """``text`` with its control characters escaped: what a client sent cannot forge a log
    line (a newline) or put a NUL into the log."""
    return _CONTROL.sub(lambda found: f"\\x{ord(found.group()):02x}", text)


def handle_thermik_error(
    req: falcon.Request, resp: falcon.Response, ex: errors.ThermikError, params: Any
) -> None:
    """A deliberate error: its class says the status and Heat type, its text the message
    (but the database's own text stays in the log)."""
    status = ex.http_status
    if status < 500:
        LOG.info("%s", _one_line(f"{req.method} {req.path}: {status} {type(ex).__name__}: {ex}"))
        _render(resp, status, ex.heat_type, str(ex))
        return
    LOG.error("%s", _one_line(f"{req.method} {req.path} failed: {type(ex).__name__}: {ex}"))
    message = DATABASE_MESSAGE if isinstance(ex, errors.StoreError) else str(ex)
    _render(resp, status, ex.heat_type, message)


def handle_http_error(
    req: falcon.Request, resp: falcon.Response, ex: falcon.HTTPError, params: Any
) -> None:
    """Falcon's own errors (no such route, method not allowed, bad header) in Heat's shape."""
    status = falcon.http_status_to_code(ex.status)
    title = status_title(status)
    heat_type = "HTTP" + "".join(title.title().split())
    explanation = _EXPLANATIONS.get(status, title)
    message = ex.description or f"{req.method} {req.path}: {explanation}"
    if ex.headers:
        resp.set_headers(ex.headers)
    _render(resp, status, heat_type, message)


def handle_unexpected(
    req: falcon.Request, resp: falcon.Response, ex: Exception, params: Any
) -> None:
    """A bug: log it with the traceback, answer 500 with a generic message."""
    LOG.exception("Unexpected error serving %s %s", req.method, req.path)
    _render(resp, 500, "HeatException", "The server encountered an internal error.")


def install(app: falcon.App[falcon.Request, falcon.Response]) -> None:
    """Register the handlers on ``app`` (the most specific class wins in Falcon)."""
    app.add_error_handler(Exception, handle_unexpected)
    app.add_error_handler(falcon.HTTPError, handle_http_error)
    app.add_error_handler(errors.ThermikError, handle_thermik_error)
