"""Capability URLs signed like Swift TempURLs: HMAC-SHA256 over method, expiry and path.

The signature covers ``"{METHOD}\\n{expires}\\n{path}"`` and travels in the query string as
``temp_url_sig`` and ``temp_url_expires``, byte for byte what Swift's ``tempurl`` middleware and
``swiftclient.utils.generate_temp_url`` produce, so the fake Swift and the engine-served builtin
URLs behave like the real thing for the agent.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from urllib.parse import urlencode

from thermik.errors import Forbidden

SIG, EXPIRES = "temp_url_sig", "temp_url_expires"
#: A signature in a URL or request line (whoever reads it holds the capability).
_SIGNATURE = re.compile(rf"({SIG}=)[^&\s]+")


def redacted(text: str) -> str:
    """``text`` (a URL, a logged request line) with every URL signature masked."""
    return _SIGNATURE.sub(r"\1******", text)


def signature(key: str, method: str, path: str, expires: int) -> str:
    """The hex HMAC-SHA256 of one method, expiry and path under ``key``."""
    message = f"{method.upper()}\n{expires}\n{path}".encode()
    return hmac.new(key.encode(), message, hashlib.sha256).hexdigest()


def signed_query(key: str, method: str, path: str, expires: int) -> str:
    """The query string that makes ``path`` usable for ``method`` until ``expires``."""
    return urlencode({SIG: signature(key, method, path, expires), EXPIRES: expires})


def signed_url(base_url: str, key: str, method: str, path: str, expires: int) -> str:
    """``base_url`` + ``path`` with the query that makes it usable for ``method``."""
    return f"{base_url}{path}?{signed_query(key, method, path, expires)}"


def _methods_allowed_by(method: str) -> tuple[str, ...]:
    # The agent HEADs before it GETs, and Swift lets any GET or PUT signature HEAD.
    return ("HEAD", "GET", "PUT") if method == "HEAD" else (method,)


def verify(key: str, method: str, path: str, query: Mapping[str, str], now: float) -> None:
    """Check a request against its signed query.

    Raises:
        Forbidden: the signature or expiry is missing or malformed, the URL expired, or the
            signature does not cover this method and path. The comparison is constant-time.
    """
    sig, raw_expires = query.get(SIG), query.get(EXPIRES)
    if not sig or not raw_expires:
        raise Forbidden("the URL carries no temp_url_sig and temp_url_expires")
    try:
        expires = int(raw_expires)
    except ValueError:
        raise Forbidden(f"temp_url_expires must be an integer, not {raw_expires!r}") from None
    if expires < now:
        raise Forbidden("the URL has expired")
    for allowed in _methods_allowed_by(method.upper()):
        if hmac.compare_digest(sig, signature(key, allowed, path, expires)):
            return
    raise Forbidden(f"the signature does not allow {method.upper()} on this path")
