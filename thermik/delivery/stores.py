"""What the metadata writer needs from the database, and in-memory versions for tests.

:class:`GenerationStore` is the per-server metadata generation with compare-and-swap (the
persistence layer implements it on the real Store); :class:`MetadataSource` builds a server's
current document from its deployment rows. Both are called on an executor, never on an actor
thread.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping
from typing import Any, Protocol

from thermik.delivery.document import DerivedConfig, metadata_document
from thermik.errors import GenerationConflict, NotFound


class GenerationStore(Protocol):
    """A monotonic metadata generation per server, changed only by compare-and-swap."""

    def get_metadata_generation(self, server_id: str) -> int:
        """The server's current generation (0 before the first bump)."""
        ...

    def bump_metadata_generation(self, server_id: str, expected: int) -> int:
        """Set the generation to ``expected + 1`` if it is still ``expected``; returns it.

        Raises:
            GenerationConflict: someone else bumped it first.
        """
        ...


class MetadataSource(Protocol):
    """Builds a server's metadata document from what the database holds now."""

    def metadata_document(self, server_id: str) -> Mapping[str, Any]:
        """The document without a generation (see :func:`document.metadata_document`)."""
        ...


class InMemoryGenerationStore:
    """A thread-safe :class:`GenerationStore` in a dict."""

    def __init__(self) -> None:
        self._generations: dict[str, int] = {}
        self._lock = threading.Lock()

    def get_metadata_generation(self, server_id: str) -> int:
        with self._lock:
            return self._generations.get(server_id, 0)

    def bump_metadata_generation(self, server_id: str, expected: int) -> int:
        with self._lock:
            current = self._generations.get(server_id, 0)
            if current != expected:
                raise GenerationConflict(
                    f"metadata generation of server {server_id} is {current}, not {expected}"
                )
            self._generations[server_id] = current + 1
            return current + 1


@dataclasses.dataclass(slots=True)
class _Server:
    collector: str
    collector_settings: Mapping[str, Any]
    template_metadata: Mapping[str, Any]
    deployments: dict[str, DerivedConfig] = dataclasses.field(default_factory=dict)


class InMemoryDeployments:
    """A thread-safe :class:`MetadataSource` holding servers and their derived configs."""

    def __init__(self) -> None:
        self._servers: dict[str, _Server] = {}
        self._lock = threading.Lock()

    def add_server(
        self,
        server_id: str,
        collector: str,
        collector_settings: Mapping[str, Any],
        template_metadata: Mapping[str, Any] | None = None,
    ) -> None:
        """Register a server and how its agent collects (from its metadata endpoint)."""
        with self._lock:
            self._servers[server_id] = _Server(
                collector, dict(collector_settings), dict(template_metadata or {})
            )

    def put_deployment(self, server_id: str, deployment_id: str, config: DerivedConfig) -> None:
        """Create or update one deployment's current derived config."""
        with self._lock:
            self._server(server_id).deployments[deployment_id] = config

    def delete_deployment(self, server_id: str, deployment_id: str) -> None:
        """Remove a deployment from the server's list."""
        with self._lock:
            self._server(server_id).deployments.pop(deployment_id, None)

    def _server(self, server_id: str) -> _Server:
        try:
            return self._servers[server_id]
        except KeyError:
            raise NotFound(f"server {server_id} has no metadata endpoint") from None

    def metadata_document(self, server_id: str) -> Mapping[str, Any]:
        with self._lock:
            server = self._server(server_id)
            return metadata_document(
                collector=server.collector,
                collector_settings=server.collector_settings,
                deployments=list(server.deployments.values()),
                template_metadata=server.template_metadata,
            )
