"""The contract every metadata delivery backend fulfils.

A backend moves a server's metadata document to the in-guest agent (os-collect-config) and brings
the agent's deployment signals back. It knows nothing about stacks or ordering: the
:mod:`thermik.delivery.metadata_actor` owns ordering and decides what "delivered" means by
reading back what the agent is served.

Every verb may block on I/O, so callers run them on an executor, never on an actor thread. Every
failure is raised as a :class:`thermik.errors.DeliveryError` subclass; each driver converts its
client library's exceptions at the boundary in a ``map_*_errors()`` context manager.
"""

from __future__ import annotations

import abc
import dataclasses
import types
from collections.abc import Mapping
from typing import Any, Self

from thermik.conf.settings import Settings

__all__ = [
    "DeliveryBackend",
    "DeploymentRef",
    "MetadataEndpoint",
    "PublishResult",
    "ServerRef",
    "SignalEndpoint",
    "request_endpoint",
    "url_signal_endpoint",
]


@dataclasses.dataclass(frozen=True, slots=True)
class ServerRef:
    """The server whose metadata is delivered.

    ``credentials`` are the agent's own credentials where a transport needs them (the Zaqar
    collector logs in to Keystone with ``auth_url``, ``user_id``, ``password``, ``project_id``,
    ``region_name``); TempURL-style transports ignore them.
    """

    server_id: str
    credentials: Mapping[str, str] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True, slots=True)
class DeploymentRef:
    """One action of one software deployment, which gets its own signal endpoint.

    ``config_id`` is the derived config id; a new one is minted for every deployment action, so a
    late signal of an earlier action can never be read as the answer to the current one.
    """

    deployment_id: str
    server_id: str
    config_id: str
    credentials: Mapping[str, str] = dataclasses.field(default_factory=dict)


def _plain(mapping: Mapping[str, Any]) -> dict[str, Any]:
    return dict(mapping)


@dataclasses.dataclass(frozen=True, slots=True)
class MetadataEndpoint:
    """Where one server's metadata document lives.

    ``collector`` and ``collector_settings`` form the agent's part of the document: the
    ``os-collect-config`` section gets ``{collector: collector_settings}`` and ``collector`` is
    added to its ``collectors`` list. ``locator`` is private to the backend (container and object,
    queue name, storage key) and, like the rest, plain strings so the persistence layer can store
    the endpoint as JSON (:meth:`to_dict`, :meth:`from_dict`).
    """

    backend: str
    server_id: str
    collector: str
    collector_settings: Mapping[str, Any]
    locator: Mapping[str, str]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready copy of this endpoint."""
        return {
            "backend": self.backend,
            "server_id": self.server_id,
            "collector": self.collector,
            "collector_settings": _plain(self.collector_settings),
            "locator": _plain(self.locator),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """Rebuild an endpoint stored with :meth:`to_dict`."""
        return cls(
            backend=str(data["backend"]),
            server_id=str(data["server_id"]),
            collector=str(data["collector"]),
            collector_settings=dict(data["collector_settings"]),
            locator={str(k): str(v) for k, v in data["locator"].items()},
        )


@dataclasses.dataclass(frozen=True, slots=True)
class SignalEndpoint:
    """Where the agent sends one deployment action's result.

    ``transport`` is Heat's ``signal_transport`` name (``TEMP_URL_SIGNAL``, ``ZAQAR_SIGNAL``) and
    ``inputs`` the derived-config inputs that tell ``heat-config-notify`` how to signal
    (``deploy_signal_id`` and ``deploy_signal_verb``, or ``deploy_queue_id`` plus credentials).
    """

    backend: str
    deployment_id: str
    transport: str
    inputs: Mapping[str, str]
    locator: Mapping[str, str]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready copy of this endpoint."""
        return {
            "backend": self.backend,
            "deployment_id": self.deployment_id,
            "transport": self.transport,
            "inputs": _plain(self.inputs),
            "locator": _plain(self.locator),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """Rebuild an endpoint stored with :meth:`to_dict`."""
        return cls(
            backend=str(data["backend"]),
            deployment_id=str(data["deployment_id"]),
            transport=str(data["transport"]),
            inputs={str(k): str(v) for k, v in data["inputs"].items()},
            locator={str(k): str(v) for k, v in data["locator"].items()},
        )


@dataclasses.dataclass(frozen=True, slots=True)
class PublishResult:
    """What a write did. ``applied`` is False when the store kept a newer object instead.

    Swift answers such a write ``202 Accepted`` and drops it (a proxy with a later clock stamped
    the stored object), so a success status is not proof of delivery: only a read-back is.
    """

    applied: bool
    status: int
    detail: str = ""


def request_endpoint(
    backend: str, server_id: str, metadata_url: str, locator: Mapping[str, str]
) -> MetadataEndpoint:
    """An endpoint the agent polls with os-collect-config's ``request`` collector."""
    return MetadataEndpoint(
        backend=backend,
        server_id=server_id,
        collector="request",
        collector_settings={"metadata_url": metadata_url},
        locator=locator,
    )


def url_signal_endpoint(
    backend: str, deployment_id: str, signal_url: str, locator: Mapping[str, str]
) -> SignalEndpoint:
    """A ``TEMP_URL_SIGNAL`` endpoint: heat-config-notify PUTs the result to ``signal_url``."""
    return SignalEndpoint(
        backend=backend,
        deployment_id=deployment_id,
        transport="TEMP_URL_SIGNAL",
        inputs={"deploy_signal_id": signal_url, "deploy_signal_verb": "PUT"},
        locator=locator,
    )


class DeliveryBackend(abc.ABC):
    """A way to serve metadata documents to agents and to collect their signals.

    Backends are registered under the entry point group ``thermik.delivery`` and built by the
    composition root with :meth:`from_settings` (or directly, with explicit collaborators).
    """

    #: The registered name, also stored in every endpoint this backend hands out.
    name: str = ""
    #: Heat's ``software_config_transport`` the endpoints of :meth:`provision` implement.
    config_transport: str = "POLL_TEMP_URL"
    #: Heat's ``signal_transport`` the endpoints of :meth:`provision_signal` implement.
    signal_transport: str = "TEMP_URL_SIGNAL"

    @classmethod
    @abc.abstractmethod
    def from_settings(cls, settings: Settings) -> Self:
        """Build the backend from typed settings; never reads configuration itself."""

    @abc.abstractmethod
    def provision(self, server: ServerRef) -> MetadataEndpoint:
        """Create the place the server's document will be served from (idempotent per server)."""

    def refreshed(self, endpoint: MetadataEndpoint) -> MetadataEndpoint:
        """``endpoint`` as it should be handed out now: backends whose URLs expire re-sign
        one close to expiry (the same place, a fresh signature); others return it as is."""
        return endpoint

    @abc.abstractmethod
    def publish(self, endpoint: MetadataEndpoint, document: Mapping[str, Any]) -> PublishResult:
        """Write ``document`` as what ``endpoint`` serves."""

    @abc.abstractmethod
    def read_back(self, endpoint: MetadataEndpoint) -> Mapping[str, Any] | None:
        """The document the agent is served now, or None if nothing is served yet."""

    @abc.abstractmethod
    def provision_signal(self, deployment: DeploymentRef) -> SignalEndpoint:
        """Create the place one deployment action's signal will arrive."""

    @abc.abstractmethod
    def collect_signals(self, endpoint: SignalEndpoint) -> list[Mapping[str, Any]]:
        """Signal payloads that arrived since the last call for this endpoint, oldest first."""

    @abc.abstractmethod
    def revoke(self, endpoint: MetadataEndpoint | SignalEndpoint) -> None:
        """Delete what ``endpoint`` names and invalidate its URLs; missing is not an error."""

    def close(self) -> None:  # noqa: B027 - most backends hold nothing to release
        """Release connections, servers and threads the backend holds."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: types.TracebackType | None,
    ) -> None:
        self.close()
