"""``builtin``: the engine serves metadata and takes signals itself (the embedded default).

Agents reach the engine at capability URLs: ``{base_url}/delivery/v1/metadata/<token>`` (GET and
HEAD) and ``{base_url}/delivery/v1/signal/<token>`` (PUT; POST too, which is how clients send
Heat's ``CFN_SIGNAL`` signals, the transport Thermik maps onto this URL), signed like Swift
TempURLs (HMAC-SHA256 over method, expiry and path, checked in constant time) and expiring after
``url_lifetime``. The token is itself an HMAC of the server or deployment, so URLs are stable
for one server and unguessable without the key. A wait condition handle's URL,
``{base_url}/delivery/v1/handle/<stack id>/<hex of the resource name>`` (POST), passes each
signal on to the engine as it comes (:meth:`BuiltinBackend.add_handle_listener`): a handle
counts every signal, where a deployment keeps only the latest.

URLs rotate before they expire. A URL is signed until a multiple of an eighth of
``url_lifetime`` (the same URL for that stretch, so a served document keeps its Etag), and
one with less than half its lifetime left is handed out no more: :meth:`BuiltinBackend.refreshed`
re-signs a server's endpoint (the ``os_collect_config`` attribute), and a document served to an
agent carries fresh ``request.metadata_url`` and ``deploy_signal_id`` URLs in place of stale
ones. os-collect-config rewrites its own configuration from the ``os-collect-config`` section of
each document it fetches, so an agent polling with a valid URL moves to the new one by itself.

Storage goes through :class:`BuiltinObjectStore`: the database's
(:class:`~thermik.delivery.shared_objects.SharedObjects`, handed in by the composition root with
:meth:`BuiltinBackend.keep_in`), so that every API worker and engine serves the same documents
and signals; :class:`InMemoryObjectStore` serves tests. The HTTP side is
:meth:`BuiltinBackend.handle`, a plain function the API mounts under ``/delivery/v1`` (and
:meth:`BuiltinBackend.serve` puts on a loopback port until then). There is no clock skew and
no replica here: a write is served as soon as it returns.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import itertools
import json
import logging
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol, Self
from urllib.parse import parse_qsl, urlsplit

from thermik.conf.settings import Settings
from thermik.delivery import signing
from thermik.delivery.base import (
    DeliveryBackend,
    DeploymentRef,
    MetadataEndpoint,
    PublishResult,
    ServerRef,
    SignalEndpoint,
    request_endpoint,
    url_signal_endpoint,
)
from thermik.delivery.document import DEPLOYMENTS_KEY, OCC_KEY, decode_signal
from thermik.delivery.loopback import HttpRequest, HttpResponse, LoopbackServer
from thermik.delivery.resource_signals import PREFIX as RESOURCE_SIGNALS
from thermik.delivery.resource_signals import ResourceSignalUrls
from thermik.errors import (
    InvalidRequest,
    NotFound,
    RequestTooLarge,
    ThermikError,
)

LOG = logging.getLogger(__name__)
PREFIX = "/delivery/v1"
METADATA, SIGNAL, HANDLE = "metadata", "signal", "handle"
#: Who is told of a signal POSTed to a handle URL: the stack id, the resource name, the body.
HandleListener = Callable[[str, str, Mapping[str, Any]], None]


@dataclasses.dataclass(frozen=True, slots=True)
class StoredObject:
    """An object's bytes and the generation its last write got (increases with every write)."""

    body: bytes
    generation: int


class BuiltinObjectStore(Protocol):
    """Where the builtin backend keeps documents and signals."""

    def put_object(self, key: str, body: bytes) -> int:
        """Store ``body`` under ``key``; returns the write's generation."""
        ...

    def get_object(self, key: str) -> StoredObject | None:
        """The object under ``key``, or None."""
        ...

    def delete_object(self, key: str) -> None:
        """Remove ``key``; a missing key is not an error."""
        ...


class InMemoryObjectStore:
    """A thread-safe :class:`BuiltinObjectStore` in a dict."""

    def __init__(self) -> None:
        self._objects: dict[str, StoredObject] = {}
        self._generations = itertools.count(1)
        self._lock = threading.Lock()

    def put_object(self, key: str, body: bytes) -> int:
        with self._lock:
            generation = next(self._generations)
            self._objects[key] = StoredObject(body, generation)
            return generation

    def get_object(self, key: str) -> StoredObject | None:
        with self._lock:
            return self._objects.get(key)

    def delete_object(self, key: str) -> None:
        with self._lock:
            self._objects.pop(key, None)


class BuiltinBackend(DeliveryBackend):
    """Engine-served delivery through signed, expiring capability URLs."""

    name = "builtin"

    def __init__(
        self,
        store: BuiltinObjectStore,
        *,
        key: str,
        base_url: str,
        url_lifetime: int = 86400 * 365,
        max_signal_size: int = 1048576,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self._key = key
        self._base_url = base_url.rstrip("/")
        self._url_lifetime = url_lifetime
        self._max_signal_size = max_signal_size
        self._clock = clock
        self._seen: dict[str, int] = {}
        self._lock = threading.Lock()
        self._server: LoopbackServer | None = None
        self._listeners: list[Callable[[SignalEndpoint], None]] = []
        self._handle_listeners: list[HandleListener] = []
        #: URLs that signal a resource (a scaling policy's ``alarm_url``), served here too.
        self.resource_signals = ResourceSignalUrls(key, lambda: self._base_url, max_signal_size)

    @classmethod
    def from_settings(cls, settings: Settings) -> Self:
        """An in-memory store, URLs under ``[delivery] public_url`` (else the API listener).

        The signing key derives from ``auth_encryption_key``; without one it is random, and
        URLs handed out do not survive a restart.
        """
        secret = settings.auth_encryption_key
        key = (
            hashlib.sha256(b"thermik-delivery-url\0" + secret.encode()).hexdigest()
            if secret
            else secrets.token_hex(32)
        )
        api = settings.api
        host = f"[{api.bind_host}]" if ":" in api.bind_host else api.bind_host
        return cls(
            InMemoryObjectStore(),
            key=key,
            base_url=settings.delivery.public_url or f"http://{host}:{api.bind_port}",
            url_lifetime=settings.delivery.url_lifetime,
            max_signal_size=settings.delivery.max_signal_size,
        )

    def _token(self, *parts: str) -> str:
        message = "\0".join(parts).encode()
        return hmac.new(self._key.encode(), message, hashlib.sha256).hexdigest()[:40]

    def _url(self, method: str, path: str) -> str:
        step = max(self._url_lifetime // 8, 1)
        expires = (int(self._clock()) + self._url_lifetime) // step * step
        return signing.signed_url(self._base_url, self._key, method, path, expires)

    def _fresh(self, url: str, method: str) -> str:
        """``url`` when it is one of this backend's and has half its lifetime left, else the
        same path signed anew (under the current base URL)."""
        parts = urlsplit(url)
        if not parts.path.startswith(PREFIX + "/"):
            return url
        raw = dict(parse_qsl(parts.query)).get(signing.EXPIRES, "")
        left = int(raw) - self._clock() if raw.isdigit() else 0
        if left > self._url_lifetime / 2 and url.startswith(self._base_url + PREFIX):
            return url
        return self._url(method, parts.path)

    def refreshed(self, endpoint: MetadataEndpoint) -> MetadataEndpoint:
        url = endpoint.collector_settings.get("metadata_url")
        if endpoint.backend != self.name or not isinstance(url, str):
            return endpoint
        fresh = self._fresh(url, "GET")
        if fresh == url:
            return endpoint
        return request_endpoint(self.name, endpoint.server_id, fresh, endpoint.locator)

    def _fresh_document(self, body: bytes) -> bytes:
        """A served document with its stale URLs of this backend re-signed (see the module
        docstring); ``body`` itself when none is stale."""
        document = json.loads(body)
        changed = False
        request = (document.get(OCC_KEY) or {}).get("request")
        if isinstance(request, dict) and isinstance(request.get("metadata_url"), str):
            fresh = self._fresh(request["metadata_url"], "GET")
            changed |= fresh != request["metadata_url"]
            request["metadata_url"] = fresh
        for entry in document.get(DEPLOYMENTS_KEY) or ():
            for item in entry.get("inputs") or ():
                if item.get("name") == "deploy_signal_id" and isinstance(item.get("value"), str):
                    fresh = self._fresh(item["value"], "PUT")
                    changed |= fresh != item["value"]
                    item["value"] = fresh
        return json.dumps(document, sort_keys=True).encode() if changed else body

    def provision(self, server: ServerRef) -> MetadataEndpoint:
        path = f"{PREFIX}/{METADATA}/{self._token(METADATA, server.server_id)}"
        return request_endpoint(
            self.name, server.server_id, self._url("GET", path), {"path": path}
        )

    def publish(self, endpoint: MetadataEndpoint, document: Mapping[str, Any]) -> PublishResult:
        body = json.dumps(document, sort_keys=True).encode()
        self.store.put_object(endpoint.locator["path"], body)
        return PublishResult(True, 201)

    def read_back(self, endpoint: MetadataEndpoint) -> Mapping[str, Any] | None:
        stored = self.store.get_object(endpoint.locator["path"])
        if stored is None:
            return None
        served: Mapping[str, Any] = json.loads(stored.body)
        return served

    def provision_signal(self, deployment: DeploymentRef) -> SignalEndpoint:
        token = self._token(SIGNAL, deployment.deployment_id, deployment.config_id)
        path = f"{PREFIX}/{SIGNAL}/{token}"
        signal_url = self._url("PUT", path)
        return url_signal_endpoint(self.name, deployment.deployment_id, signal_url, {"path": path})

    def handle_signal_url(self, stack_id: str, resource_name: str) -> str:
        """The URL a wait condition handle is signalled at with a POST of the signal's JSON
        (signed for ``url_lifetime``, never re-signed: it is handed out once)."""
        path = f"{PREFIX}/{HANDLE}/{stack_id}/{resource_name.encode().hex()}"
        return signing.signed_url(
            self._base_url, self._key, "POST", path, int(self._clock()) + self._url_lifetime
        )

    def collect_signals(self, endpoint: SignalEndpoint) -> list[Mapping[str, Any]]:
        path = endpoint.locator["path"]
        stored = self.store.get_object(path)
        with self._lock:
            if stored is None or self._seen.get(path) == stored.generation:
                return []
            self._seen[path] = stored.generation
        return [decode_signal(stored.body, self._max_signal_size)]

    def revoke(self, endpoint: MetadataEndpoint | SignalEndpoint) -> None:
        self.store.delete_object(endpoint.locator["path"])
        with self._lock:
            self._seen.pop(endpoint.locator["path"], None)

    def handle(self, request: HttpRequest) -> HttpResponse:
        """Answer an agent's request to a capability URL.

        Raises:
            Forbidden: wrong, missing or expired signature (checked before anything else).
            NotFound: nothing is stored there (yet).
            RequestTooLarge: a signal body over ``max_signal_size``.
            InvalidSignal: a signal body that is not a JSON object.
            InvalidRequest: a method other than GET, HEAD, PUT or POST, or a write to a
                metadata URL.

        Resource signal URLs (:mod:`thermik.delivery.resource_signals`) are answered there.
        """
        if request.path.startswith(RESOURCE_SIGNALS):
            return self.resource_signals.handle(request, self._clock())
        kind = request.path.removeprefix(PREFIX + "/").split("/", 1)[0]
        # A deployment asking for Heat's CFN_SIGNAL gets this URL, and CFN signals are POSTed:
        # a signal URL takes a POST as the PUT it is signed for.
        method = "PUT" if request.method == "POST" and kind == SIGNAL else request.method
        signing.verify(self._key, method, request.path, request.query, self._clock())
        if kind == HANDLE and request.method == "POST":
            return self._signal_handle(request)
        if request.method in ("GET", "HEAD"):
            stored = self.store.get_object(request.path)
            if stored is None:
                raise NotFound(f"nothing is served at {request.path} yet")
            body = self._fresh_document(stored.body) if kind == METADATA else stored.body
            headers = {
                "Content-Type": "application/json",
                "Content-Length": str(len(body)),
                "Etag": hashlib.md5(body, usedforsecurity=False).hexdigest(),
            }
            return HttpResponse(200, headers, b"" if request.method == "HEAD" else body)
        if method == "PUT" and kind == SIGNAL:
            if len(request.body) > self._max_signal_size:
                raise RequestTooLarge(
                    f"signal body of {len(request.body)} bytes exceeds the limit of "
                    f"{self._max_signal_size}"
                )
            decode_signal(request.body, self._max_signal_size)
            self.store.put_object(request.path, request.body)
            self._signalled(request.path)
            return HttpResponse(201, {"Content-Type": "text/plain; charset=UTF-8"})
        raise InvalidRequest(f"{request.method} is not allowed on {kind} URLs")

    def _signal_handle(self, request: HttpRequest) -> HttpResponse:
        """Pass a handle's signal to the handle listeners (their errors are the answer)."""
        parts = request.path.removeprefix(f"{PREFIX}/{HANDLE}/").split("/")
        if len(parts) != 2:
            raise NotFound(f"no handle is signalled at {request.path}")
        try:
            stack_id, name = parts[0], bytes.fromhex(parts[1]).decode()
        except ValueError:
            raise NotFound(f"no handle is signalled at {request.path}") from None
        data = decode_signal(request.body, self._max_signal_size) if request.body else {}
        with self._lock:
            listeners = list(self._handle_listeners)
        for listener in listeners:
            listener(stack_id, name, data)
        return HttpResponse(200, {"Content-Type": "application/json"}, b"null")

    def add_handle_listener(self, listener: HandleListener) -> None:
        """Call ``listener`` with each signal POSTed to a handle URL, before answering it."""
        with self._lock:
            self._handle_listeners.append(listener)

    def add_signal_listener(self, listener: Callable[[SignalEndpoint], None]) -> None:
        """Call ``listener`` with the endpoint (backend, transport and locator filled, the rest
        blank) after every signal stored: the engine learns of signals without polling."""
        with self._lock:
            self._listeners.append(listener)

    def keep_in(self, store: BuiltinObjectStore) -> None:
        """Keep documents and signals in ``store`` from now on (the composition root hands
        the database's, so that every process serves the same; call it before publishing)."""
        self.store = store

    def signalled(self, path: str) -> None:
        """A signal was stored at ``path`` by another process sharing the store (an API
        worker): tell the signal listeners, as for a signal stored here."""
        self._signalled(path)

    def _signalled(self, path: str) -> None:
        endpoint = SignalEndpoint(self.name, "", "TEMP_URL_SIGNAL", {}, {"path": path})
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(endpoint)
            except Exception:  # a listener's failure must not lose the stored signal
                LOG.exception("signal listener failed for %s", path)

    def serve(self, request: HttpRequest) -> HttpResponse:
        """:meth:`handle` with errors rendered as HTTP statuses (for the loopback server)."""
        try:
            return self.handle(request)
        except ThermikError as exc:
            body = json.dumps({"error": {"type": exc.heat_type, "message": str(exc)}})
            return HttpResponse(
                exc.http_status, {"Content-Type": "application/json"}, body.encode()
            )

    def serve_on_loopback(self, public_url: str | None = None) -> str:
        """Serve :meth:`handle` itself, for an engine running without the REST API (the CLI,
        tests); returns the base URL URLs are handed out under from now on.

        Without ``public_url`` it listens on a free loopback port; with one (``[delivery]
        public_url``) it listens on that URL's host and port and hands out that URL.
        """
        with self._lock:
            if self._server is None:
                if public_url is None:
                    server = LoopbackServer(self.serve)
                    self._base_url = server.start()
                else:
                    where = urlsplit(public_url)
                    host, port = where.hostname or "127.0.0.1", where.port or 80
                    server = LoopbackServer(self.serve, host, port)
                    server.start()
                    self._base_url = public_url.rstrip("/")
                self._server = server
            return self._base_url

    def close(self) -> None:
        with self._lock:
            server, self._server = self._server, None
        if server is not None:
            server.stop()
