"""``swift``: POLL_TEMP_URL delivery and TEMP_URL_SIGNAL collection through OpenStack Swift.

Each server gets a container ``<container_prefix>-<server_id>`` holding its ``metadata`` object;
the agent polls a GET TempURL of it (os-collect-config's ``request`` collector). The engine
writes with its own credentials (python-swiftclient on a keystoneauth1 session, or tempauth
when ``auth_version`` is ``1``) and reads back with ``X-Newest`` so a lagging replica cannot
hide what was stored. Each deployment action gets a PUT TempURL for its signal; collecting a
signal is a HEAD, and a GET only when the ETag changed.

The account's TempURL key is the configured one, else the one already set on the account, else
a new random key that is then set. Swift answers a write that lost to a newer stamp with 202
and drops it: :meth:`SwiftBackend.publish` reports that as not applied.

swiftclient's own retry loop (which sleeps) is disabled; the metadata actor owns retrying.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Self
from urllib.parse import urlsplit

import swiftclient
import tenacity
from keystoneauth1 import session as ksa_session
from keystoneauth1.identity import v3

from thermik.conf.settings import Settings, SwiftSettings
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
from thermik.delivery.client_errors import status_error, transport_error
from thermik.delivery.document import decode_signal, generation_of
from thermik.errors import ConfigError, DeliveryTargetMissing, DeliveryUnavailable

KEY_HEADER = "x-account-meta-temp-url-key"
SECOND_KEY_HEADER = "x-account-meta-temp-url-key-2"
METADATA_OBJECT = "metadata"


@contextlib.contextmanager
def map_swift_errors(action: str = "Swift request") -> Iterator[None]:
    """Convert swiftclient, keystoneauth1, requests and socket errors into DeliveryErrors."""
    try:
        yield
    except swiftclient.ClientException as exc:
        status = getattr(exc, "http_status", None)
        raise status_error(status)(f"{action} failed: {exc}") from exc
    except Exception as exc:
        kind = transport_error(exc)
        if kind is None:
            raise
        raise kind(f"{action} failed: {exc}") from exc


def _choose_key(configured: str | None, account: Mapping[str, str]) -> tuple[str, str | None]:
    """The key to sign with, and the account header to set it in (None: already set).

    A configured key that the account lacks goes into the second key slot when the first is
    taken, so TempURLs that others signed with the first key keep working.
    """
    present = account.get(KEY_HEADER)
    if configured is None:
        return (present, None) if present else (secrets.token_hex(16), KEY_HEADER)
    if configured in (present, account.get(SECOND_KEY_HEADER)):
        return configured, None
    return configured, SECOND_KEY_HEADER if present else KEY_HEADER


def _required(settings: SwiftSettings, option: str) -> str:
    value = getattr(settings, option)
    if not value:
        raise ConfigError("is required for the swift delivery backend", path=("swift", option))
    return str(value)


def connect(
    settings: SwiftSettings, timeout: float = 30.0, storage_url: str | None = None
) -> swiftclient.Connection:
    """A swiftclient connection from settings, without swiftclient's sleeping retries.

    ``storage_url`` replaces the storage URL the authentication answers with (to talk to the
    account through another proxy of the same cluster).
    """
    auth_url = _required(settings, "auth_url")
    username = _required(settings, "username")
    password = _required(settings, "password")
    if settings.auth_version == "1":
        return swiftclient.Connection(
            authurl=auth_url,
            user=username,
            key=password,
            auth_version="1",
            retries=0,
            timeout=timeout,
            preauthurl=storage_url,
        )
    auth = v3.Password(
        auth_url=auth_url,
        username=username,
        password=password,
        project_name=_required(settings, "project_name"),
        user_domain_name=settings.user_domain_name,
        project_domain_name=settings.project_domain_name,
    )
    return swiftclient.Connection(
        session=ksa_session.Session(auth=auth, timeout=timeout),
        retries=0,
        timeout=timeout,
        preauthurl=storage_url,
    )


class SwiftBackend(DeliveryBackend):
    """Delivery through Swift TempURLs.

    ``proxy_urls`` names further proxies of the same cluster (``scheme://host:port``): each
    metadata write and read-back then goes through one chosen at random among the proxy the
    authentication names and these, as behind a load balancer, so a deployment can check
    that delivery holds when the proxies' clocks disagree.
    """

    name = "swift"

    def __init__(
        self,
        settings: SwiftSettings,
        *,
        url_lifetime: int = 86400 * 365,
        max_signal_size: int = 1048576,
        clock: Callable[[], float] = time.time,
        setup_attempts: int = 3,
        proxy_urls: Sequence[str] = (),
        rng: random.Random | None = None,
    ) -> None:
        self._settings = settings
        self._url_lifetime = url_lifetime
        self._max_signal_size = max_signal_size
        self._clock = clock
        self._setup_attempts = setup_attempts
        self._proxy_urls = tuple(url.rstrip("/") for url in proxy_urls)
        self._rng = rng or random.Random()
        # swiftclient connections are not thread-safe; executor threads get one each.
        self._local = threading.local()
        self._connections: list[swiftclient.Connection] = []
        self._lock = threading.Lock()
        self._account_lock = threading.Lock()
        self._account: tuple[str, str] | None = None
        self._seen: dict[str, str] = {}

    @classmethod
    def from_settings(cls, settings: Settings) -> Self:
        return cls(
            settings.swift,
            url_lifetime=settings.delivery.url_lifetime,
            max_signal_size=settings.delivery.max_signal_size,
        )

    def _conn(self) -> swiftclient.Connection:
        conn: swiftclient.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self._settings)
            self._local.conn = conn
            with self._lock:
                self._connections.append(conn)
        return conn

    def _object_conn(self) -> swiftclient.Connection:
        """The connection for one metadata write or read-back (through a random proxy)."""
        if not self._proxy_urls:
            return self._conn()
        with self._lock:
            choice = self._rng.randrange(len(self._proxy_urls) + 1)
        if choice == 0:
            return self._conn()
        proxies: dict[int, swiftclient.Connection] = self._local.__dict__.setdefault("proxies", {})
        conn = proxies.get(choice)
        if conn is None:
            storage = urlsplit(self._storage_and_key()[0])
            base = urlsplit(self._proxy_urls[choice - 1])
            url = storage._replace(scheme=base.scheme, netloc=base.netloc).geturl()
            conn = proxies[choice] = connect(self._settings, storage_url=url)
            with self._lock:
                self._connections.append(conn)
        return conn

    def _retrying(self) -> tenacity.Retrying:
        """Retries transient failures of one-off setup calls (the caller runs on an executor)."""
        return tenacity.Retrying(
            retry=tenacity.retry_if_exception_type(DeliveryUnavailable),
            stop=tenacity.stop_after_attempt(self._setup_attempts),
            wait=tenacity.wait_random_exponential(multiplier=0.2, max=2.0),
            reraise=True,
        )

    def _storage_and_key(self) -> tuple[str, str]:
        """The account's storage URL and a TempURL key it honours (set if need be)."""
        # One thread at a time, so two threads never set two different random keys.
        with self._account_lock:
            if self._account is None:
                conn = self._conn()
                with map_swift_errors("reading the Swift account"):
                    headers = conn.head_account()
                key, header = _choose_key(self._settings.temp_url_key, headers)
                if header is not None:
                    with map_swift_errors("setting the account TempURL key"):
                        conn.post_account({header: key})
                self._account = (str(conn.url), key)
            return self._account

    def _container(self, server_id: str) -> str:
        return f"{self._settings.container_prefix}-{server_id}"

    def _temp_url(self, method: str, container: str, obj: str) -> str:
        storage, key = self._storage_and_key()
        parts = urlsplit(storage)
        path = f"{parts.path}/{container}/{obj}"
        expires = int(self._clock()) + self._url_lifetime
        return signing.signed_url(f"{parts.scheme}://{parts.netloc}", key, method, path, expires)

    def provision(self, server: ServerRef) -> MetadataEndpoint:
        container = self._container(server.server_id)
        for attempt in self._retrying():
            with attempt, map_swift_errors(f"creating container {container}"):
                self._conn().put_container(container)
        url = self._temp_url("GET", container, METADATA_OBJECT)
        locator = {"container": container, "object": METADATA_OBJECT}
        return request_endpoint(self.name, server.server_id, url, locator)

    def publish(self, endpoint: MetadataEndpoint, document: Mapping[str, Any]) -> PublishResult:
        container, obj = endpoint.locator["container"], endpoint.locator["object"]
        response: dict[str, Any] = {}
        with map_swift_errors(f"writing {container}/{obj}"):
            self._object_conn().put_object(
                container,
                obj,
                json.dumps(document, sort_keys=True).encode(),
                content_type="application/json",
                headers={"X-Object-Meta-Generation": str(generation_of(document))},
                response_dict=response,
            )
        status = int(response.get("status", 201))
        return PublishResult(status == 201, status, str(response.get("reason", "")))

    def _get(
        self, container: str, obj: str, conn: swiftclient.Connection | None = None
    ) -> tuple[Mapping[str, str], bytes] | None:
        with map_swift_errors(f"reading {container}/{obj}"):
            try:
                headers, body = (conn or self._conn()).get_object(
                    container, obj, headers={"X-Newest": "true"}
                )
            except swiftclient.ClientException as exc:
                if exc.http_status == 404:
                    return None
                raise
        return headers, body

    def read_back(self, endpoint: MetadataEndpoint) -> Mapping[str, Any] | None:
        locator = endpoint.locator
        found = self._get(locator["container"], locator["object"], self._object_conn())
        if found is None:
            return None
        served: Mapping[str, Any] = json.loads(found[1])
        return served

    def provision_signal(self, deployment: DeploymentRef) -> SignalEndpoint:
        container = self._container(deployment.server_id)
        digest = hashlib.sha256(deployment.config_id.encode()).hexdigest()[:16]
        obj = f"signal-{deployment.deployment_id}-{digest}"
        for attempt in self._retrying():
            with attempt, map_swift_errors(f"creating container {container}"):
                self._conn().put_container(container)
        url = self._temp_url("PUT", container, obj)
        locator = {"container": container, "object": obj}
        return url_signal_endpoint(self.name, deployment.deployment_id, url, locator)

    def collect_signals(self, endpoint: SignalEndpoint) -> list[Mapping[str, Any]]:
        container, obj = endpoint.locator["container"], endpoint.locator["object"]
        with map_swift_errors(f"checking {container}/{obj}"):
            try:
                headers = self._conn().head_object(container, obj, headers={"X-Newest": "true"})
            except swiftclient.ClientException as exc:
                if exc.http_status == 404:
                    return []
                raise
        etag = str(headers.get("etag", ""))
        with self._lock:
            if self._seen.get(f"{container}/{obj}") == etag:
                return []
        found = self._get(container, obj)
        if found is None:
            return []
        with self._lock:
            self._seen[f"{container}/{obj}"] = str(found[0].get("etag", etag))
        return [decode_signal(found[1], self._max_signal_size)]

    def revoke(self, endpoint: MetadataEndpoint | SignalEndpoint) -> None:
        container, obj = endpoint.locator["container"], endpoint.locator["object"]
        with map_swift_errors(f"deleting {container}/{obj}"):
            try:
                self._conn().delete_object(container, obj)
            except swiftclient.ClientException as exc:
                if exc.http_status != 404:
                    raise
        with self._lock:
            self._seen.pop(f"{container}/{obj}", None)
        if isinstance(endpoint, MetadataEndpoint):
            self._delete_container_if_empty(container)
            # A server bound to an endpoint reserved before it existed keeps its signals in
            # the container named by its own id.
            signals = self._container(endpoint.server_id)
            if signals != container:
                self._delete_container_if_empty(signals)

    def _delete_container_if_empty(self, container: str) -> None:
        with contextlib.suppress(DeliveryTargetMissing), map_swift_errors(f"deleting {container}"):
            try:
                self._conn().delete_container(container)
            except swiftclient.ClientException as exc:
                if exc.http_status != 409:  # 409: signals still live in it
                    raise

    def close(self) -> None:
        with self._lock:
            connections, self._connections = self._connections, []
        for conn in connections:
            conn.close()
        self._local = threading.local()
