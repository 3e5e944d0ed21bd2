"""The fake Swift object store: proxies with their own clocks, Swift's write semantics, faults.

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
The backend that delivers through it is :mod:`thermik.delivery.impl_fakeswift`.
"""

from __future__ import annotations

import dataclasses
import email.utils
import hashlib
import random
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from thermik.delivery import signing
from thermik.delivery.loopback import HttpRequest, HttpResponse
from thermik.delivery.simulation import Delay, Process, run_blocking
from thermik.errors import Forbidden

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
