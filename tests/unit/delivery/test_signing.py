"""Signed URLs are Swift TempURLs, byte for byte, and refuse anything they do not allow."""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest
from swiftclient.utils import generate_temp_url

from thermik.delivery import signing
from thermik.errors import Forbidden

KEY = "secret"
PATH = "/v1/AUTH_test/container/object"
EXPIRES = 2_000_000_000


def query(method: str, path: str = PATH, expires: int = EXPIRES) -> dict[str, str]:
    return dict(parse_qsl(signing.signed_query(KEY, method, path, expires)))


@pytest.mark.parametrize("method", ["GET", "PUT"])
def test_signature_matches_swiftclient(method: str) -> None:
    theirs = generate_temp_url(PATH, EXPIRES, KEY, method, absolute=True)
    assert theirs == f"{PATH}?{signing.signed_query(KEY, method, PATH, EXPIRES)}"


def test_valid_signature_passes_and_head_rides_on_get_or_put() -> None:
    signing.verify(KEY, "GET", PATH, query("GET"), now=EXPIRES - 1)
    signing.verify(KEY, "HEAD", PATH, query("GET"), now=EXPIRES - 1)
    signing.verify(KEY, "HEAD", PATH, query("PUT"), now=EXPIRES - 1)


@pytest.mark.parametrize(
    ("method", "path", "params", "message"),
    [
        ("PUT", PATH, query("GET"), "the signature does not allow PUT on this path"),
        ("GET", PATH + "x", query("GET"), "the signature does not allow GET"),
        ("GET", PATH, {}, "the URL carries no temp_url_sig"),
        ("GET", PATH, {**query("GET"), "temp_url_expires": "soon"}, "temp_url_expires must be"),
        ("GET", PATH, query("GET", expires=10), "the URL has expired"),
        ("GET", PATH, {**query("GET"), "temp_url_sig": "0" * 64}, "the signature does not"),
    ],
)
def test_anything_else_is_forbidden(
    method: str, path: str, params: dict[str, str], message: str
) -> None:
    with pytest.raises(Forbidden) as info:
        signing.verify(KEY, method, path, params, now=EXPIRES - 1000)
    assert str(info.value).startswith(message)
