"""``fakeswift``: TempURL delivery into the in-process fake Swift store.

This is a real, registered backend (no mock): the concurrency and fault tests deliver through
it, and a local run can serve it to an agent over HTTP on a loopback port. The store itself,
with its skewed proxy clocks, 202-dropped writes, stale reads and faults, is
:mod:`thermik.delivery.fakeswift_cluster`. Every verb also exists as a simulation process
(``*_process``), so the race tests run the very same code on a virtual clock.
"""

from __future__ import annotations

import contextlib
import json
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
from thermik.delivery.fakeswift_cluster import (
    FakeSwiftCluster,
    FakeSwiftConnectionError,
    FakeSwiftError,
    FakeSwiftHTTPError,
)
from thermik.delivery.loopback import HttpResponse, LoopbackServer
from thermik.delivery.simulation import Process, run_blocking
from thermik.errors import DeliveryError, DeliveryUnavailable

ACCOUNT = "/v1/AUTH_fake"


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
