"""``fakeswift``: an in-process Swift object store with Swift's measured write semantics.

This is a real, registered backend (no mock): the concurrency and fault tests deliver through it,
and a local run can serve it to an agent over HTTP (:mod:`thermik.delivery.fakeswift_http`).
It models the mechanism that makes Swift lose metadata updates (see the design's §3):

- every request goes through one of several *proxies*, each with its own clock offset, chosen
  at random per request (a load balancer) unless the caller picks one;
- a write is stamped with the proxy's clock when it arrives (a client cannot choose the stamp)
  and committed a little later; it replaces the stored object only if its stamp is strictly
  newer, otherwise it answers **202 Accepted** and is dropped (DELETE answers 409);
- reads serve the newest committed version, or, for plain reads within the stale window, an
  older one (replica lag); ``X-Newest`` reads are always fresh unless configured otherwise;
- knobs for network latency, reordering, injected 5xx answers, dropped connections and a
  service that is down.

All randomness comes from one seeded generator, and every request is a
:mod:`~thermik.delivery.simulation` process, so the same store runs in real time (blocking
calls from an executor) or on a simulated clock with identical behaviour for a given seed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import email.utils
import hashlib
import json
import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Self

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
from thermik.delivery.client_errors import status_error
from thermik.delivery.document import decode_signal, generation_of
from thermik.delivery.loopback import HttpRequest, HttpResponse, LoopbackServer
from thermik.delivery.simulation import Delay, Process, run_blocking
from thermik.errors import (
    DeliveryError,
    DeliveryUnavailable,
    Forbidden,
)

ACCOUNT = "/v1/AUTH_fake"
TICKS = 100_000
"""Swift timestamps have 10 microsecond resolution."""


class FakeSwiftError(Exception):
    """What a Swift client would raise talking to this store (the fake's client exceptions)."""


class FakeSwiftHTTPError(FakeSwiftError):
    """The store answered with an unexpected status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status} {message}")
        self.status = status


class FakeSwiftConnectionError(FakeSwiftError):
    """The connection was refused or reset."""


@contextlib.contextmanager
def map_fakeswift_errors() -> Iterator[None]:
    """Convert the fake's client exceptions into :class:`DeliveryError` subclasses."""
    try:
        yield
    except FakeSwiftConnectionError as exc:
        raise DeliveryUnavailable(f"fake Swift connection failed: {exc}") from exc
    except FakeSwiftHTTPError as exc:
        raise status_error(exc.status)(f"fake Swift answered {exc}") from exc
    except FakeSwiftError as exc:
        raise DeliveryError(f"fake Swift failed: {exc}") from exc


@dataclasses.dataclass(frozen=True, slots=True)
class Knobs:
    """How the fake store misbehaves. Delays are seconds, ranges are uniform ``(low, high)``.

    ``proxy_offsets`` gives each proxy's clock offset against the store's clock;
    ``reorder_probability`` holds a request back by an extra ``reorder_delay``; a plain read
    within ``stale_read_window`` of a newer commit serves the older version with
    ``stale_read_probability`` (``honour_newest=False`` extends that to ``X-Newest`` reads);
    ``error_rate`` answers 503 without doing anything; ``reset_rate`` drops the connection
    after the store acted; ``down`` refuses every connection.
    """

    proxy_offsets: tuple[float, ...] = (0.0,)
    latency: tuple[float, float] = (0.0, 0.0)
    commit_delay: tuple[float, float] = (0.0, 0.0)
    reorder_probability: float = 0.0
    reorder_delay: float = 0.0
    stale_read_probability: float = 0.0
    stale_read_window: float = 0.0
    honour_newest: bool = True
    error_rate: float = 0.0
    reset_rate: float = 0.0
    down: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class _Version:
    stamp: int
    body: bytes | None  # None is a tombstone
    committed_at: float
    headers: Mapping[str, str]


@dataclasses.dataclass(slots=True)
class Counters:
    """What the store saw: writes and how many were dropped, reads, injected faults."""

    puts: int = 0
    puts_dropped: int = 0
    gets: int = 0
    errors_injected: int = 0
    resets: int = 0
    refused: int = 0


class FakeSwiftCluster:
    """The shared object store behind one or more proxies (thread-safe)."""

    def __init__(
        self,
        knobs: Knobs | None = None,
        *,
        seed: int = 0,
        clock: Callable[[], float] = time.time,
        temp_url_key: str = "fake-temp-url-key",
    ) -> None:
        self.knobs = knobs or Knobs()
        self.clock = clock
        self.temp_url_key = temp_url_key
        self.counters = Counters()
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._objects: dict[str, list[_Version]] = {}

    def configure(self, **changes: Any) -> None:
        """Change knobs while requests run (a service going down, getting slow, ...)."""
        with self._lock:
            self.knobs = dataclasses.replace(self.knobs, **changes)

    def _uniform(self, bounds: tuple[float, float]) -> float:
        low, high = bounds
        return low if high <= low else self._rng.uniform(low, high)

    def _chance(self, probability: float) -> bool:
        return probability > 0 and self._rng.random() < probability

    def _transit(self) -> Process[None]:
        with self._lock:
            if self.knobs.down:
                self.counters.refused += 1
                raise FakeSwiftConnectionError("connection refused")
            delay = self._uniform(self.knobs.latency)
            if self._chance(self.knobs.reorder_probability):
                delay += self.knobs.reorder_delay
        yield Delay(delay)

    def _arrive(self, proxy: int | None) -> Process[int | None]:
        """Travel to a proxy; the proxy's stamp, or None when it answers 503."""
        yield from self._transit()
        with self._lock:
            if self._chance(self.knobs.error_rate):
                self.counters.errors_injected += 1
                return None
            offsets = self.knobs.proxy_offsets
            index = self._rng.randrange(len(offsets)) if proxy is None else proxy
            return round((self.clock() + offsets[index % len(offsets)]) * TICKS)

    def _depart(self) -> Process[None]:
        with self._lock:
            reset = self._chance(self.knobs.reset_rate)
            if reset:
                self.counters.resets += 1
        if reset:
            raise FakeSwiftConnectionError("connection reset by peer")
        yield from self._transit()

    def _commit(self, path: str, version: _Version) -> bool:
        with self._lock:
            history = self._objects.setdefault(path, [])
            if history and history[-1].stamp >= version.stamp:
                return False
            history.append(version)
            horizon = self.clock() - max(self.knobs.stale_read_window, 0.0)
            while len(history) > 2 and history[1].committed_at <= horizon:
                history.pop(0)
            return True

    def put(
        self,
        path: str,
        body: bytes,
        headers: Mapping[str, str] | None = None,
        proxy: int | None = None,
    ) -> Process[HttpResponse]:
        """PUT an object: 201 if stored, 202 if a newer stamp is stored, 503 if injected."""
        stamp = yield from self._arrive(proxy)
        if stamp is None:
            yield from self._depart()
            return HttpResponse(503)
        with self._lock:
            delay = self._uniform(self.knobs.commit_delay)
        yield Delay(delay)
        meta = {k: v for k, v in (headers or {}).items() if k.lower().startswith("x-object-meta-")}
        stored = self._commit(path, _Version(stamp, body, self.clock(), meta))
        with self._lock:
            self.counters.puts += 1
            self.counters.puts_dropped += 0 if stored else 1
        yield from self._depart()
        return HttpResponse(201 if stored else 202, {"Etag": _etag(body)})

    def delete(self, path: str, proxy: int | None = None) -> Process[HttpResponse]:
        """DELETE an object: 204, 404 if missing, 409 if a newer stamp is stored."""
        stamp = yield from self._arrive(proxy)
        if stamp is None:
            yield from self._depart()
            return HttpResponse(503)
        with self._lock:
            history = self._objects.get(path, [])
            current = history[-1] if history else None
        if current is None or current.body is None:
            status = 404
        else:
            status = 204 if self._commit(path, _Version(stamp, None, self.clock(), {})) else 409
        yield from self._depart()
        return HttpResponse(status)

    def _visible(self, path: str, newest: bool) -> _Version | None:
        with self._lock:
            self.counters.gets += 1
            history = self._objects.get(path, [])
            knobs = self.knobs
            fresh = newest and knobs.honour_newest
            if history and not fresh and self._chance(knobs.stale_read_probability):
                horizon = self.clock() - knobs.stale_read_window
                older = [v for v in history if v.committed_at <= horizon]
                return older[-1] if older else None
            return history[-1] if history else None

    def get(
        self, path: str, *, newest: bool = False, head: bool = False, proxy: int | None = None
    ) -> Process[HttpResponse]:
        """GET (or HEAD) an object: 200 with body and headers, 404, or 503 if injected."""
        stamp = yield from self._arrive(proxy)
        if stamp is None:
            yield from self._depart()
            return HttpResponse(503)
        version = self._visible(path, newest)
        yield from self._depart()
        if version is None or version.body is None:
            return HttpResponse(404)
        seconds = version.stamp / TICKS
        headers = {
            "Etag": _etag(version.body),
            "X-Timestamp": f"{seconds:.5f}",
            "Last-Modified": email.utils.formatdate(int(seconds), usegmt=True),
            "Content-Type": "application/json",
            "Content-Length": str(len(version.body)),
            **version.headers,
        }
        return HttpResponse(200, headers, b"" if head else version.body)

    def tempurl_request(
        self, method: str, path: str, query: Mapping[str, str], body: bytes = b""
    ) -> Process[HttpResponse]:
        """Serve a TempURL request the way Swift's ``tempurl`` middleware does (401 if the
        signature does not allow it); plain, not ``X-Newest``, reads."""
        try:
            signing.verify(self.temp_url_key, method, path, query, self.clock())
        except Forbidden:
            return HttpResponse(401, {}, b"401 Unauthorized: Temp URL invalid\n")
        if method in ("GET", "HEAD"):
            return (yield from self.get(path, head=method == "HEAD"))
        if method == "PUT":
            return (yield from self.put(path, body))
        return HttpResponse(405)

    def serve(self, request: HttpRequest) -> HttpResponse:
        """Answer one HTTP request in real time (the loopback server's handler)."""
        process = self.tempurl_request(request.method, request.path, request.query, request.body)
        try:
            return run_blocking(process)
        except FakeSwiftConnectionError:
            # An HTTP handler cannot refuse or reset its connection; 503 looks the same to an
            # agent ("Source unavailable").
            return HttpResponse(503)

    def stored(self, path: str) -> bytes | None:
        """The newest committed body of ``path`` (test and bench inspection, no faults)."""
        with self._lock:
            history = self._objects.get(path, [])
            return history[-1].body if history else None


def _etag(body: bytes) -> str:
    return hashlib.md5(body, usedforsecurity=False).hexdigest()


def _expect(response: HttpResponse, *statuses: int) -> HttpResponse:
    if response.status not in statuses:
        raise FakeSwiftHTTPError(response.status, "unexpected status")
    return response


class FakeSwiftBackend(DeliveryBackend):
    """The ``fakeswift`` delivery backend: TempURL delivery into a :class:`FakeSwiftCluster`.

    The ``*_process`` methods are the same operations as simulation processes; the
    :class:`DeliveryBackend` verbs run them in real time. ``base_url`` is where agents reach
    the store; ``serve=True`` starts a loopback HTTP server on first use and uses its URL.
    """

    name = "fakeswift"

    def __init__(
        self,
        cluster: FakeSwiftCluster | None = None,
        *,
        base_url: str | None = None,
        serve: bool = False,
        url_lifetime: int = 86400 * 365,
        max_signal_size: int = 1048576,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.cluster = cluster or FakeSwiftCluster()
        self._base_url = base_url
        self._serve = serve
        self._server: LoopbackServer | None = None
        self._url_lifetime = url_lifetime
        self._max_signal_size = max_signal_size
        self._sleep = sleep
        self._seen: dict[str, str] = {}
        # Guards the signal ETags seen so far and the lazy start of the loopback server.
        self._seen_lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> Self:
        """A fault-free store served on a loopback port, for local runs."""
        return cls(
            serve=True,
            url_lifetime=settings.delivery.url_lifetime,
            max_signal_size=settings.delivery.max_signal_size,
        )

    @property
    def base_url(self) -> str:
        """The scheme and host agents use to reach the store."""
        with self._seen_lock:
            if self._base_url is None and self._serve:
                self._server = LoopbackServer(self.cluster.serve)
                self._base_url = self._server.start()
        return self._base_url or "http://fakeswift.invalid"

    def _url(self, method: str, path: str) -> str:
        expires = int(self.cluster.clock()) + self._url_lifetime
        return signing.signed_url(self.base_url, self.cluster.temp_url_key, method, path, expires)

    def provision(self, server: ServerRef) -> MetadataEndpoint:
        path = f"{ACCOUNT}/thermik-{server.server_id}/metadata"
        return request_endpoint(
            self.name, server.server_id, self._url("GET", path), {"path": path}
        )

    def publish_process(
        self, endpoint: MetadataEndpoint, document: Mapping[str, Any], proxy: int | None = None
    ) -> Process[PublishResult]:
        """:meth:`publish` as a process."""
        body = json.dumps(document, sort_keys=True).encode()
        headers = {"X-Object-Meta-Generation": str(generation_of(document))}
        with map_fakeswift_errors():
            response = yield from self.cluster.put(endpoint.locator["path"], body, headers, proxy)
            _expect(response, 201, 202)
        return PublishResult(response.status == 201, response.status)

    def read_back_process(self, endpoint: MetadataEndpoint) -> Process[Mapping[str, Any] | None]:
        """:meth:`read_back` as a process (an ``X-Newest`` read)."""
        with map_fakeswift_errors():
            response = yield from self.cluster.get(endpoint.locator["path"], newest=True)
            if response.status == 404:
                return None
            _expect(response, 200)
        served: Mapping[str, Any] = json.loads(response.body)
        return served

    def publish(self, endpoint: MetadataEndpoint, document: Mapping[str, Any]) -> PublishResult:
        return run_blocking(self.publish_process(endpoint, document), self._sleep)

    def read_back(self, endpoint: MetadataEndpoint) -> Mapping[str, Any] | None:
        return run_blocking(self.read_back_process(endpoint), self._sleep)

    def provision_signal(self, deployment: DeploymentRef) -> SignalEndpoint:
        path = (
            f"{ACCOUNT}/thermik-{deployment.server_id}/"
            f"signal-{deployment.deployment_id}-{deployment.config_id}"
        )
        signal_url = self._url("PUT", path)
        return url_signal_endpoint(self.name, deployment.deployment_id, signal_url, {"path": path})

    def _collect(self, path: str) -> Process[list[Mapping[str, Any]]]:
        with map_fakeswift_errors():
            response = yield from self.cluster.get(path, newest=True)
            if response.status == 404:
                return []
            _expect(response, 200)
        etag = response.headers.get("Etag", "")
        with self._seen_lock:
            if self._seen.get(path) == etag:
                return []
            self._seen[path] = etag
        return [decode_signal(response.body, self._max_signal_size)]

    def collect_signals(self, endpoint: SignalEndpoint) -> list[Mapping[str, Any]]:
        return run_blocking(self._collect(endpoint.locator["path"]), self._sleep)

    def _delete(self, path: str) -> Process[None]:
        with map_fakeswift_errors():
            response = yield from self.cluster.delete(path)
            _expect(response, 204, 404)

    def revoke(self, endpoint: MetadataEndpoint | SignalEndpoint) -> None:
        run_blocking(self._delete(endpoint.locator["path"]), self._sleep)
        with self._seen_lock:
            self._seen.pop(endpoint.locator["path"], None)

    def close(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None
            self._base_url = None
