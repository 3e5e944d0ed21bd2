"""Signed URLs that signal one resource when POSTed to, without credentials.

What Heat's scaling policy hands out as its ``alarm_url`` (Heat signs it EC2-style for the
CFN API): ``{base_url}/delivery/v1/resource-signal/<stack id>/<resource name>`` with a
signature (HMAC-SHA256, as :mod:`thermik.delivery.signing` signs every capability URL) that
allows ``POST`` only. Like Heat's, the URL does not expire: whoever holds it (an alarm service,
a monitoring script) can signal that resource until it is deleted. The body, when there is one,
is the signal's data (a JSON object); the resource handles the signal as one sent through the
REST API.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Final
from urllib.parse import quote

from thermik.delivery import signing
from thermik.delivery.loopback import HttpRequest, HttpResponse
from thermik.errors import InvalidRequest, InvalidSignal, PluginError

PREFIX: Final = "/delivery/v1/resource-signal/"
#: The expiry signed into every URL: the year 3000 (Heat's alarm URLs never expire).
NEVER_EXPIRES: Final = 32503680000
Signaller = Callable[[str, str, Mapping[str, Any] | None], None]


def signal_through(backend: object, signaller: Signaller) -> None:
    """Hand every signal ``backend`` takes for a resource (a wait condition handle's URL, a
    resource signal URL) to ``signaller(stack_id, resource_name, data)``: the engine's own
    runtime, or in an engine-less API worker the RPC client of the driving engine."""
    listen = getattr(backend, "add_handle_listener", None)
    if callable(listen):
        listen(signaller)
    urls = getattr(backend, "resource_signals", None)
    if isinstance(urls, ResourceSignalUrls):
        urls.attach(signaller)


class ResourceSignalUrls:
    """Hands out the URLs and answers POSTs to them by signalling the resource."""

    def __init__(self, key: str, base_url: Callable[[], str], max_size: int) -> None:
        self._key = key
        self._base_url = base_url
        self._max_size = max_size
        self._signaller: Signaller | None = None

    def attach(self, signaller: Signaller) -> None:
        """Deliver signals through ``signaller(stack_id, resource_name, data)`` (it waits
        until the resource handled the signal) from now on."""
        self._signaller = signaller

    def base_url(self) -> str:
        """The public URL of the engine's capability URLs (the REST API's when it serves
        them)."""
        return self._base_url()

    def url(self, stack_id: str, resource_name: str) -> str:
        """The URL that signals ``resource_name`` of ``stack_id`` when POSTed to."""
        path = f"{PREFIX}{stack_id}/{resource_name}"
        query = signing.signed_query(self._key, "POST", path, NEVER_EXPIRES)
        return f"{self._base_url()}{PREFIX}{quote(stack_id, safe='')}/" + (
            f"{quote(resource_name, safe='')}?{query}"
        )

    def handle(self, request: HttpRequest, now: float) -> HttpResponse:
        """Signal the resource the (verified) URL names.

        Raises:
            Forbidden: wrong or missing signature, or a method other than POST.
            InvalidRequest: the path names no stack and resource.
            InvalidSignal: the body is not a JSON object, or the resource refused it.
            NotFound: no such stack or resource.
        """
        signing.verify(self._key, request.method, request.path, request.query, now)
        stack_id, _, name = request.path.removeprefix(PREFIX).partition("/")
        if not stack_id or not name:
            raise InvalidRequest("a resource signal URL names a stack and a resource")
        if request.method != "POST":
            raise InvalidRequest(f"{request.method} is not allowed on resource signal URLs")
        if self._signaller is None:
            raise PluginError("resource signals: the engine is not running yet")
        self._signaller(stack_id, name, self._data(request.body))
        return HttpResponse(200, {"Content-Type": "application/json"}, b"null")

    def _data(self, body: bytes) -> Mapping[str, Any] | None:
        if not body.strip():
            return None
        if len(body) > self._max_size:
            raise InvalidSignal(f"signal body of {len(body)} bytes exceeds {self._max_size}")
        try:
            data = json.loads(body)
        except ValueError:
            raise InvalidSignal("a signal body must be JSON") from None
        if not isinstance(data, Mapping):
            raise InvalidSignal("a signal body must be a JSON object")
        return data
