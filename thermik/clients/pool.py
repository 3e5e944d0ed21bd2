"""One openstacksdk connection per credential, cached and shared by the engine's threads.

A :class:`Credential` says who calls (a cloud of a ``clouds.yaml``, or keystoneauth options);
:class:`ClientPool` keeps one connection per credential and TLS profile (services configured
with the same CA bundle, client certificate, ``insecure`` and timeout share one) and hands out
:class:`thermik.clients.calls.CloudClient` objects that map, retry and count every call.
Region and endpoint interface come from :class:`thermik.conf.settings.ClientSettings`.
"""

from __future__ import annotations

import collections
import dataclasses
import threading
from typing import Any

from openstack import exceptions as sdk
from openstack.config.loader import OpenStackConfig
from openstack.connection import Connection

from thermik.clients.calls import CloudClient
from thermik.clients.counting import CallCounter
from thermik.clients.errors import to_cloud_error
from thermik.clients.quiet import quiet_bodies
from thermik.conf.settings import ENVIRONMENT_CLOUD, ClientOptions, ClientSettings

#: Heat's names of the services with a [clients_<name>] group, and their service types.
SERVICE_TYPES = {
    "keystone": "identity",
    "nova": "compute",
    "neutron": "network",
    "glance": "image",
    "cinder": "block-storage",
    "swift": "object-store",
    "zaqar": "messaging",
    "heat": "orchestration",
}


@dataclasses.dataclass(frozen=True)
class Credential:
    """Who calls the cloud: a named cloud of a ``clouds.yaml`` (``config_file``, or where
    openstacksdk looks), or keystoneauth ``auth_type`` with its ``auth`` options."""

    cloud: str | None = None
    config_file: str | None = None
    auth_type: str = "password"
    auth: tuple[tuple[str, str], ...] = dataclasses.field(default=(), repr=False)

    @classmethod
    def from_cloud(cls, name: str, config_file: str | None = None) -> Credential:
        return cls(cloud=name, config_file=config_file)

    @classmethod
    def from_auth(cls, auth_type: str = "password", **auth: str) -> Credential:
        return cls(auth_type=auth_type, auth=tuple(sorted(auth.items())))


@dataclasses.dataclass(frozen=True)
class _Tls:
    """What makes two services need connections of their own: the session's TLS and timeout."""

    verify: bool | str
    cert: str | None
    key: str | None
    timeout: int | None

    @classmethod
    def of(cls, options: ClientOptions) -> _Tls:
        verify: bool | str = options.ca_file or True
        if options.insecure:
            verify = False
        return cls(verify, options.cert_file, options.key_file, options.timeout)


#: Connections a pool keeps: in service mode every user token and every stack's trust is a
#: credential of its own, so the least recently used are let go beyond this many.
KEPT_CONNECTIONS = 512


class ClientPool:
    """The connections of every credential, created on first use and shared by threads.

    At most ``kept`` are kept; the least recently used beyond that are forgotten, not closed
    (a thread may still be using one; its session is closed when it is collected).
    """

    def __init__(
        self,
        settings: ClientSettings,
        counter: CallCounter | None = None,
        kept: int = KEPT_CONNECTIONS,
    ) -> None:
        self.settings = settings
        self.counter = counter or CallCounter()
        self.kept = kept
        quiet_bodies()
        self._lock = threading.Lock()
        self._connections: collections.OrderedDict[tuple[Credential, _Tls], Connection] = (
            collections.OrderedDict()
        )

    def client(self, credential: Credential, service: str) -> CloudClient:
        """A client for ``service`` (a Heat name: nova, neutron, glance, cinder, keystone)."""
        if service not in SERVICE_TYPES:
            raise ValueError(f"unknown service {service!r}; known: {', '.join(SERVICE_TYPES)}")
        connection = self.connection(credential, _Tls.of(self.settings.for_service(service)))
        return CloudClient(
            connection, SERVICE_TYPES[service], retry_limit=self.settings.retry_limit
        )

    def connection(self, credential: Credential, tls: _Tls | None = None) -> Connection:
        """The shared connection of ``credential`` (with the ``[clients]`` TLS by default)."""
        tls = tls or _Tls.of(self.settings.defaults)
        key = (credential, tls)
        with self._lock:
            connection = self._connections.get(key)
            if connection is None:
                try:
                    connection = Connection(config=self._region(credential, tls))
                except sdk.SDKException as error:  # e.g. a region the clouds.yaml lacks
                    raise to_cloud_error(error) from error
                self.counter.watch(connection)
                self._connections[key] = connection
                while len(self._connections) > self.kept:
                    self._connections.popitem(last=False)
            else:
                self._connections.move_to_end(key)
            return connection

    def discard(self, credential: Credential) -> None:
        """Close the connections of a credential that is no longer used (a deleted trust's)."""
        with self._lock:
            keys = [key for key in self._connections if key[0] == credential]
            connections = [self._connections.pop(key) for key in keys]
        for connection in connections:
            connection.close()

    def close(self) -> None:
        """Close every connection (their HTTP sessions); the pool can be used again."""
        with self._lock:
            connections = list(self._connections.values())
            self._connections.clear()
        for connection in connections:
            connection.close()

    def _region(self, credential: Credential, tls: _Tls) -> Any:
        overrides: dict[str, Any] = {
            "verify": tls.verify,
            "api_timeout": tls.timeout,
            "interface": interface(self.settings.defaults.endpoint_type),
        }
        if tls.cert:
            overrides["cert"] = tls.cert
        if tls.key:
            overrides["key"] = tls.key
        if self.settings.region_name:
            overrides["region_name"] = self.settings.region_name
        for name, service_type in SERVICE_TYPES.items():
            endpoint_type = self.settings.for_service(name).endpoint_type
            overrides[f"{service_type.replace('-', '_')}_interface"] = interface(endpoint_type)
        from_environment = credential.cloud == ENVIRONMENT_CLOUD
        loader = OpenStackConfig(
            config_files=[credential.config_file] if credential.config_file else None,
            load_yaml_config=credential.cloud is not None and not from_environment,
            load_envvars=from_environment,
        )
        if credential.cloud is not None:
            return loader.get_one(cloud=credential.cloud, **overrides)
        return loader.get_one(
            auth_type=credential.auth_type, auth=dict(credential.auth), **overrides
        )


def interface(endpoint_type: str | None) -> str:
    """keystoneauth's interface name for Heat's ``endpoint_type`` (``publicURL`` -> public)."""
    return (endpoint_type or "public").removesuffix("URL")
