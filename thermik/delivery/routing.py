"""One backend to the engine's deployments, made of its configured backend and the backends
of the transports that need no configuration (POLL_SERVER_HEAT's API-polled documents).

:class:`RoutedBackend` hands every endpoint to the backend that provisioned it (the endpoint
names it), so a server polling the API and one polling a Swift TempURL live side by side in
one engine. New endpoints come from the configured backend unless one is asked for by name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Self

from thermik.conf.settings import Settings
from thermik.delivery.base import (
    DeliveryBackend,
    DeploymentRef,
    MetadataEndpoint,
    PublishResult,
    ServerRef,
    SignalEndpoint,
)
from thermik.errors import ConfigError


class RoutedBackend(DeliveryBackend):
    """``primary`` (the configured backend) and ``others``, by endpoint."""

    def __init__(self, primary: DeliveryBackend, others: Sequence[DeliveryBackend]) -> None:
        self.primary = primary
        self.name = primary.name
        self.config_transport = primary.config_transport
        self.signal_transport = primary.signal_transport
        self._by_name = {backend.name: backend for backend in others}
        self._by_name[primary.name] = primary

    @classmethod
    def from_settings(cls, settings: Settings) -> Self:
        raise ConfigError("a routed backend is built from backends, not from settings")

    def named(self, name: str) -> DeliveryBackend:
        """The backend called ``name`` (KeyError if there is none)."""
        return self._by_name[name]

    def _of(self, endpoint: MetadataEndpoint | SignalEndpoint) -> DeliveryBackend:
        return self._by_name.get(endpoint.backend, self.primary)

    def provision(self, server: ServerRef) -> MetadataEndpoint:
        return self.primary.provision(server)

    def refreshed(self, endpoint: MetadataEndpoint) -> MetadataEndpoint:
        return self._of(endpoint).refreshed(endpoint)

    def publish(self, endpoint: MetadataEndpoint, document: Mapping[str, Any]) -> PublishResult:
        return self._of(endpoint).publish(endpoint, document)

    def read_back(self, endpoint: MetadataEndpoint) -> Mapping[str, Any] | None:
        return self._of(endpoint).read_back(endpoint)

    def provision_signal(self, deployment: DeploymentRef) -> SignalEndpoint:
        return self.primary.provision_signal(deployment)

    def collect_signals(self, endpoint: SignalEndpoint) -> list[Mapping[str, Any]]:
        return self._of(endpoint).collect_signals(endpoint)

    def revoke(self, endpoint: MetadataEndpoint | SignalEndpoint) -> None:
        self._of(endpoint).revoke(endpoint)

    def close(self) -> None:
        """Close the backends this one made (the primary is closed by its owner)."""
        for backend in self._by_name.values():
            if backend is not self.primary:
                backend.close()
