"""What a request may carry: the characters and numbers every backend database can store.

PostgreSQL refuses a NUL character in text and JSON, no database can store half of a UTF-16
surrogate pair (JSON's ``"\\ud800"`` decodes to one), JSON has no infinite numbers (``1e999``
decodes to one), and integer columns are 32-bit. Whatever breaks one of these rules is refused
here with a 400 naming the field, before anything is looked up or stored: the same rules for
every route, whether the value comes in the path, the query string, a header or the body.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

import falcon

from thermik import errors
from thermik.errors import PathElement

#: The range of the ``INTEGER`` columns (timeouts, depths, counters) on every backend.
INT32_MAX = 2**31 - 1
INT32_MIN = -(2**31)
#: The widths of the text columns request fields are stored in (thermik/persistence/models.py).
NAME_LENGTH = 255
PROJECT_LENGTH = 64
STATE_LENGTH = 64
TAG_LENGTH = 80


def _fault(text: str) -> str | None:
    """What is wrong with ``text`` (a character no database stores, and where), if anything."""
    # The common case costs one scan in C; the position is looked for only when it fails.
    if "\x00" not in text and (text.isascii() or not _has_surrogate(text)):
        return None
    for position, char in enumerate(text):
        if char == "\x00":
            what = "a NUL character"
        elif "\ud800" <= char <= "\udfff":
            what = f"an unpaired surrogate U+{ord(char):04X}"
        else:
            continue
        return f"must not contain {what} (at character {position})"
    return None


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def check_text(text: str, field: str, path: tuple[PathElement, ...] = ()) -> str:
    """``text``, or a 400 naming ``field`` (and ``path`` inside it) if no database can store it."""
    fault = _fault(text)
    if fault is not None:
        raise errors.InvalidRequest(fault, path=(field, *path), parameter=field)
    return text


def check_length(text: str, field: str, maximum: int) -> str:
    """``text``, or a 400 naming ``field`` when it is longer than its column holds."""
    if len(text) > maximum:
        raise errors.InvalidRequest(
            f"must be at most {maximum} characters, not {len(text)}",
            path=(field,),
            parameter=field,
        )
    return text


def check_integer(
    number: int, field: str, *, minimum: int = INT32_MIN, maximum: int = INT32_MAX
) -> int:
    """``number``, or a 400 naming ``field`` when it is outside ``minimum``..``maximum``."""
    if number < minimum:
        raise errors.InvalidRequest(f"must be at least {minimum}", path=(field,), parameter=field)
    if number > maximum:
        raise errors.InvalidRequest(f"must be at most {maximum}", path=(field,), parameter=field)
    return number


#: What JSON text must contain to decode to a NUL or an unpaired surrogate (raw control
#: characters and raw surrogates are not valid JSON).
_MAY_FAULT = re.compile(r"\\u(?:0000|[dD][89a-fA-F])")


def check_json(text: str, document: Any) -> None:
    """:func:`check_document` for ``document`` decoded from ``text``; skipped, for speed,
    when the text cannot hold a character it refuses (JSON decoded with :func:`finite_float`
    holds no infinite number)."""
    if _MAY_FAULT.search(text):
        check_document(document)


def finite_float(literal: str) -> float:
    """A JSON number as a float (``json.loads``' ``parse_float``): ``1e999`` is a 400."""
    number = float(literal)
    if not math.isfinite(number):
        raise errors.InvalidRequest(
            f"must hold finite numbers only, not {literal:.40}", path=("body",)
        )
    return number


def check_document(document: Any) -> None:
    """Every key and string of a decoded JSON body passes :func:`check_text` and every number
    is finite; a 400 names the first that does not by its path (``parameters.flavor``)."""
    for path, value, is_key in _leaves(document):
        where = path or ("body",)
        if isinstance(value, str):
            fault = _fault(value)
            if fault is not None:
                raise errors.InvalidRequest(
                    f"a key {fault}" if is_key else fault, path=where, parameter=str(where[0])
                )
        elif isinstance(value, float) and not math.isfinite(value):
            raise errors.InvalidRequest(
                "must be a finite number", path=where, parameter=str(where[0])
            )


def _leaves(document: Any) -> Iterator[tuple[tuple[PathElement, ...], Any, bool]]:
    """Every scalar and key of ``document``: its path, itself, and whether it is a key
    (iterative, since JSON may nest deeper than Python recurses)."""
    pending: list[tuple[tuple[PathElement, ...], Any]] = [((), document)]
    while pending:
        path, value = pending.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                yield path, key, True
                pending.append(((*path, key), item))
        elif isinstance(value, list):
            pending.extend(((*path, index), item) for index, item in enumerate(value))
        else:
            yield path, value, False


#: The headers whose value a stack stores as its user (noauth's, and keystonemiddleware's).
_STORED_HEADERS = {"X-Auth-User": NAME_LENGTH, "X-User-Id": NAME_LENGTH}


class AdmissibleRequest:
    """Falcon middleware: the path, the query string and the headers of every request pass
    :func:`check_text`, and the tenant in the path and the user in the headers fit their
    columns, before any route runs."""

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Check what every request carries outside its body."""
        check_text(req.path, "path")
        for name, value in req.params.items():
            check_text(name, "query")
            for item in (value,) if isinstance(value, str) else value:
                check_text(item, name)
        for name, value in req.headers.items():
            # keystonemiddleware sets the identity headers a token lacks (its domain, system
            # scope) to None.
            if value is not None:
                check_text(value, name.title())
        for name, width in _STORED_HEADERS.items():
            header = req.get_header(name)
            if header is not None:
                check_length(header, name, width)

    def process_resource(
        self, req: falcon.Request, resp: falcon.Response, resource: object, params: dict[str, Any]
    ) -> None:
        """Check the route's fields that are stored as they are."""
        tenant = params.get("tenant_id")
        if isinstance(tenant, str):
            check_length(tenant, "tenant_id", PROJECT_LENGTH)
