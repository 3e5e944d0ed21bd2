"""``POLL_SERVER_HEAT``: the agent polls the server resource's metadata through Thermik's API.

os-collect-config's ``heat`` collector logs in to Keystone as the server's stack domain user,
finds Thermik as the ``orchestration`` service of its token's catalog and GETs
``/v1/{project}/stacks/{name}/{id}/resources/{server}/metadata``, which the API builds from the
database on every request (:func:`~thermik.deployments.source.resource_document`). So
publishing writes nothing anywhere: once a deployment is stored, the API serves it.
:meth:`ApiPolledBackend.read_back` answers with the last document published, which is what
the API serves from then on.

The backend is not registered for ``[delivery] backend``: the engine uses it beside its
configured backend for the servers that ask for POLL_SERVER_HEAT and have a stack user
(:class:`~thermik.delivery.routing.RoutedBackend`). It has no signal endpoints of its own:
HEAT_SIGNAL goes through the API too.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
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
from thermik.errors import DeliveryRejected
from thermik.resources.agent_config import heat_settings

#: What the agent's ``heat`` collector is configured with (``region_name`` is optional).
AGENT_KEYS = ("auth_url", "user_id", "password", "project_id", "stack_id", "resource_name")


class ApiPolledBackend(DeliveryBackend):
    """Documents served by the REST API from the database (see the module docstring)."""

    name = "heat"
    config_transport = "POLL_SERVER_HEAT"
    signal_transport = "HEAT_SIGNAL"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._published: dict[str, Mapping[str, Any]] = {}

    @classmethod
    def from_settings(cls, settings: Settings) -> Self:
        return cls()

    def provision(self, server: ServerRef) -> MetadataEndpoint:
        """The ``heat`` collector's settings from the server's credentials (:data:`AGENT_KEYS`
        and ``region_name``).

        Raises:
            PropertyError: a credential is missing.
        """
        found = server.credentials
        settings = heat_settings(
            **{key: str(found.get(key) or "") for key in AGENT_KEYS},
            region_name=found.get("region_name") or None,
        )
        return MetadataEndpoint(
            backend=self.name,
            server_id=server.server_id,
            collector="heat",
            collector_settings=settings,
            locator={},
        )

    def publish(self, endpoint: MetadataEndpoint, document: Mapping[str, Any]) -> PublishResult:
        with self._lock:
            self._published[endpoint.server_id] = document
        return PublishResult(True, 200)

    def read_back(self, endpoint: MetadataEndpoint) -> Mapping[str, Any] | None:
        with self._lock:
            return self._published.get(endpoint.server_id)

    def provision_signal(self, deployment: DeploymentRef) -> SignalEndpoint:
        raise DeliveryRejected("POLL_SERVER_HEAT servers signal through the API (HEAT_SIGNAL)")

    def collect_signals(self, endpoint: SignalEndpoint) -> list[Mapping[str, Any]]:
        return []

    def revoke(self, endpoint: MetadataEndpoint | SignalEndpoint) -> None:
        if isinstance(endpoint, MetadataEndpoint):
            with self._lock:
                self._published.pop(endpoint.server_id, None)
