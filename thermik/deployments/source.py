"""Servers' metadata endpoints and documents, rebuilt from the database.

:class:`ServerEndpoints` finds where a server's document is served: remembered when the engine
provisioned it, otherwise read from the server resource's data (by the server's physical id),
so any engine process finds it. :class:`StoreMetadataSource` is the
:class:`~thermik.delivery.stores.MetadataSource` the metadata writers snapshot: the server's
endpoint section plus the derived config of every deployment stored for the server by the
server's own tenant (as in Heat, another tenant's deployments never reach the server, whoever
created them and however). :func:`resource_document` is the same document as the server
resource's metadata shows it. None of them reads or waits for the server resource's lock.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import threading
from collections.abc import Iterable, Mapping
from typing import Any

from thermik.delivery.base import MetadataEndpoint
from thermik.delivery.document import DerivedConfig, metadata_document
from thermik.deployments.configs import derived_of
from thermik.errors import DeliveryTargetMissing, NotFound, TemplateError
from thermik.persistence.resource_values import Resource
from thermik.persistence.store import Store
from thermik.resources.software_services import SERVER_ENDPOINT_KEY

LOG = logging.getLogger(__name__)
_DELETE = "DELETE"


@dataclasses.dataclass(frozen=True, slots=True)
class ServerRecord:
    """Where a server's document is served, the template metadata it carries, and the
    collectors its agent polls before the transport's (a Nova server's ``ec2``)."""

    endpoint: MetadataEndpoint
    metadata: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    default_collectors: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The record a server resource keeps."""
        data: dict[str, Any] = {
            "endpoint": self.endpoint.to_dict(),
            "metadata": dict(self.metadata),
        }
        if self.default_collectors:
            data["default_collectors"] = list(self.default_collectors)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ServerRecord:
        """A record kept with :meth:`to_dict`."""
        return cls(
            MetadataEndpoint.from_dict(data["endpoint"]),
            dict(data.get("metadata") or {}),
            tuple(str(c) for c in data.get("default_collectors") or ()),
        )

    def bound_to(self, server_id: str) -> ServerRecord:
        """This record serving the server ``server_id``: an endpoint reserved before its server
        existed (a Nova server's) is named by what it was reserved as, the server by its id."""
        if self.endpoint.server_id == server_id:
            return self
        return dataclasses.replace(
            self, endpoint=dataclasses.replace(self.endpoint, server_id=server_id)
        )

    def document(self, deployments: Iterable[DerivedConfig]) -> dict[str, Any]:
        """The server's document listing ``deployments``, without a generation."""
        return metadata_document(
            collector=self.endpoint.collector,
            collector_settings=self.endpoint.collector_settings,
            deployments=deployments,
            template_metadata=self.metadata,
            default_collectors=self.default_collectors,
        )


class ServerEndpoints:
    """Server id -> :class:`ServerRecord`, cached in front of the servers' resource data."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._known: dict[str, ServerRecord] = {}
        self._released: set[str] = set()
        self._lock = threading.Lock()

    def remember(self, server_id: str, record: ServerRecord) -> None:
        """The engine just provisioned ``record`` for the server."""
        with self._lock:
            self._known[server_id] = record.bound_to(server_id)
            self._released.discard(server_id)

    def forget(self, server_id: str) -> None:
        """The server's endpoint was revoked."""
        with self._lock:
            self._known.pop(server_id, None)
            self._released.add(server_id)

    def get(self, server_id: str) -> ServerRecord | None:
        """The server's record, or None when no live server resource has one."""
        with self._lock:
            if server_id in self._known:
                return self._known[server_id]
            if server_id in self._released:
                return None
        found = self._stored(server_id)
        if found is not None:
            with self._lock:
                self._known.setdefault(server_id, found)
        return found

    def _stored(self, server_id: str) -> ServerRecord | None:
        rows = self._store.find_resources_by_physical_id(server_id)
        for row in sorted(rows, key=lambda r: r.id, reverse=True):
            if row.action == _DELETE:
                continue
            text = self._store.get_resource_data(row.id).get(SERVER_ENDPOINT_KEY)
            if text:
                return ServerRecord.from_dict(json.loads(text)).bound_to(server_id)
        return None


def server_tenant(store: Store, server_id: str) -> str | None:
    """The tenant of the stack holding the live server resource with that physical id
    (None while no such resource is stored)."""
    for row in store.find_resources_by_physical_id(server_id):
        if row.action == _DELETE:
            continue
        with contextlib.suppress(NotFound):
            return store.get_stack(row.stack_id, show_deleted=True).tenant
    return None


def derived_configs(store: Store, server_id: str, tenant: str | None) -> list[DerivedConfig]:
    """The derived config of every deployment of ``tenant`` (any tenant: None) stored for the
    server. A config that cannot be rendered is left out (and logged) rather than keeping
    every other deployment of the server from being delivered."""
    found = []
    for deployment in store.list_software_deployments(tenant=tenant, server_id=server_id):
        try:
            found.append(derived_of(store.get_software_config(deployment.config_id)))
        except NotFound:
            continue  # the deployment was removed meanwhile
        except TemplateError as error:
            LOG.warning(
                "config %s of deployment %s left out of server %s's metadata: %s",
                deployment.config_id,
                deployment.id,
                server_id,
                error,
            )
    return found


def resource_document(store: Store, resource: Resource, tenant: str) -> dict[str, Any] | None:
    """A server resource's metadata document (``os-collect-config`` and ``deployments`` of
    ``tenant``) as its agent is served it, without the generation; None when the resource
    has no metadata endpoint (it is no server managed by this engine, or it was deleted)."""
    if resource.physical_resource_id is None or resource.action == _DELETE:
        return None
    text = store.get_resource_data(resource.id).get(SERVER_ENDPOINT_KEY)
    if not text:
        return None
    record = ServerRecord.from_dict(json.loads(text))
    return record.document(derived_configs(store, resource.physical_resource_id, tenant))


class StoreMetadataSource:
    """Builds a server's document from its endpoint and its stored deployments."""

    def __init__(self, store: Store, endpoints: ServerEndpoints) -> None:
        self._store = store
        self._endpoints = endpoints
        self._tenants: dict[str, str] = {}
        self._lock = threading.Lock()

    def tenant_of(self, server_id: str) -> str | None:
        """The server's tenant (cached once known: a server never changes tenant)."""
        with self._lock:
            if server_id in self._tenants:
                return self._tenants[server_id]
        found = server_tenant(self._store, server_id)
        if found is not None:
            with self._lock:
                self._tenants[server_id] = found
        return found

    def derived_configs(self, server_id: str) -> list[DerivedConfig]:
        """The derived config of every deployment of the server's tenant stored for it (of
        any tenant while the server resource is not stored yet: only its engine knows it)."""
        return derived_configs(self._store, server_id, self.tenant_of(server_id))

    def metadata_document(self, server_id: str) -> Mapping[str, Any]:
        """The document without a generation.

        Raises:
            DeliveryTargetMissing: the server has no endpoint (it was deleted meanwhile).
        """
        record = self._endpoints.get(server_id)
        if record is None:
            raise DeliveryTargetMissing(f"server {server_id} has no metadata endpoint")
        return record.document(self.derived_configs(server_id))
