"""Count the HTTP requests Thermik sends to the cloud, by service type and method.

Counted where they leave: a response hook on the requests session under an openstacksdk
connection sees every request, including token requests and the SDK's own look-ups and retries,
which is what a comparison of API calls per resource needs.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Mapping
from typing import Any

from openstack.connection import Connection


class CallCounter:
    """Thread-safe counts of cloud requests by ``(service type, HTTP method)``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: collections.Counter[tuple[str, str]] = collections.Counter()

    def record(self, service: str, method: str) -> None:
        with self._lock:
            self._counts[service, method] += 1

    def snapshot(self) -> Mapping[tuple[str, str], int]:
        """The counts so far (a copy)."""
        with self._lock:
            return dict(self._counts)

    def total(self, service: str | None = None) -> int:
        """All requests so far, or those to ``service`` (a service type such as ``compute``)."""
        with self._lock:
            return sum(n for (s, _), n in self._counts.items() if service in (None, s))

    def watch(self, connection: Connection) -> None:
        """Count every request ``connection`` sends from now on."""
        catalog = _Catalog(connection)

        def hook(response: Any, *args: Any, **kwargs: Any) -> Any:
            request = response.request
            self.record(catalog.service_of(str(request.url)), str(request.method))
            return response

        connection.session.session.hooks["response"].append(hook)


class _Catalog:
    """Which service type a URL belongs to, by the longest endpoint URL of the token's catalog
    it starts with; requests before there is a token (the token request) are ``identity``."""

    def __init__(self, connection: Connection) -> None:
        self._auth = connection.session.auth
        self._seen: object = None
        self._prefixes: list[tuple[str, str]] = []

    def service_of(self, url: str) -> str:
        auth_ref = getattr(self._auth, "auth_ref", None)
        if auth_ref is None:
            return "identity"
        if auth_ref is not self._seen:
            self._prefixes = _endpoint_prefixes(auth_ref)
            self._seen = auth_ref
        return next((kind for prefix, kind in self._prefixes if url.startswith(prefix)), "other")


def _endpoint_prefixes(auth_ref: Any) -> list[tuple[str, str]]:
    prefixes = {
        endpoint["url"].rstrip("/"): service["type"]
        for service in auth_ref.service_catalog.catalog
        for endpoint in service.get("endpoints", ())
        if endpoint.get("url")
    }
    return sorted(prefixes.items(), key=lambda item: -len(item[0]))
