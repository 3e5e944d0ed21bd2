"""A small, real SoftwareDeploymentServices in memory, and a context that offers it.

It derives configs and judges signals with the same pure functions the engine uses
(:mod:`thermik.delivery.document`), records every action it was asked to start, and lets a
test play the server's agent (:meth:`MemorySoftware.agent_signals`).
"""

from __future__ import annotations

import dataclasses
import datetime
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from tests.unit.resources.harness import Context
from thermik.delivery import document
from thermik.deployments.configs import source_of
from thermik.errors import NotFound, PluginError
from thermik.resources.software_services import (
    COMPLETE,
    FAILED,
    IN_PROGRESS,
    ActionRequest,
    ConfigData,
    DeploymentHandle,
    DeploymentState,
    ServerEndpoint,
)

NOW = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


class MemorySoftware:
    """Configs, servers and deployments in dicts; see the module docstring."""

    def __init__(self) -> None:
        self.configs: dict[str, ConfigData] = {}
        self.tenants: dict[str, str] = {}
        self.servers: dict[str, str] = {}
        self.records: dict[str, Mapping[str, Any]] = {}
        self.reserved: dict[str, str] = {}
        self.revoked: list[str] = []
        self.deployments: dict[str, DeploymentState] = {}
        self.derived: dict[str, document.DerivedConfig] = {}
        self.requests: list[ActionRequest] = []
        self.removed: list[str] = []
        self.cancelled: list[str] = []
        self._pending: dict[str, list[Mapping[str, Any]]] = {}
        self._ids = itertools.count(1)

    # -- configs ------------------------------------------------------------------------------

    def create_config(self, tenant: str, config: ConfigData) -> str:
        config_id = f"config-{next(self._ids)}"
        self.configs[config_id] = config
        self.tenants[config_id] = tenant
        return config_id

    def get_config(self, config_id: str, tenant: str) -> ConfigData:
        if config_id not in self.configs or self.tenants.get(config_id) != tenant:
            raise NotFound(f"config {config_id} not found")
        return self.configs[config_id]

    def delete_config(self, config_id: str) -> None:
        self.configs.pop(config_id, None)

    # -- servers ------------------------------------------------------------------------------

    def provision_server(
        self,
        server_id: str,
        transport: str,
        metadata: Mapping[str, Any],
        *,
        credentials: Mapping[str, str] | None = None,
        default_collectors: Sequence[str] = (),
    ) -> ServerEndpoint:
        endpoint = self.reserve_server(
            server_id,
            transport,
            metadata,
            credentials=credentials,
            default_collectors=default_collectors,
        )
        return self.bind_server(server_id, endpoint.record)

    def reserve_server(
        self,
        name: str,
        transport: str,
        metadata: Mapping[str, Any],
        *,
        credentials: Mapping[str, str] | None = None,
        default_collectors: Sequence[str] = (),
    ) -> ServerEndpoint:
        if transport == "ZAQAR_MESSAGE":
            raise PluginError("software_config_transport ZAQAR_MESSAGE is not offered")
        record: dict[str, Any] = {"server": name}
        if default_collectors:
            record["collectors"] = list(default_collectors)
        self.reserved[name] = transport
        return ServerEndpoint(record, self._agent_config(record))

    def bind_server(self, server_id: str, record: Mapping[str, Any]) -> ServerEndpoint:
        self.servers[server_id] = self.reserved[str(record["server"])]
        self.records[server_id] = dict(record)
        return ServerEndpoint(record, self._agent_config(record))

    def revoke_endpoint(self, record: Mapping[str, Any]) -> None:
        self.revoked.append(str(record["server"]))

    @staticmethod
    def _agent_config(record: Mapping[str, Any]) -> dict[str, Any]:
        url = f"http://agent.invalid/{record['server']}"
        return {
            "collectors": [*record.get("collectors", ()), "request", "local"],
            "request": {"metadata_url": url},
        }

    def server_agent_config(self, server_id: str) -> Mapping[str, Any] | None:
        record = self.records.get(server_id)
        return None if record is None else self._agent_config(record)

    def release_server(self, server_id: str) -> None:
        self.servers.pop(server_id, None)
        self.records.pop(server_id, None)

    # -- deployments --------------------------------------------------------------------------

    def start_action(
        self, request: ActionRequest, previous: DeploymentHandle | None
    ) -> DeploymentState:
        if request.server_id not in self.servers:
            raise PluginError(f"server {request.server_id} has no metadata endpoint")
        self.requests.append(request)
        config_id = f"derived-{next(self._ids)}"
        source = self.get_config(request.config_id, request.tenant) if request.config_id else None
        facts = document.DeploymentFacts(
            server_id=request.server_id,
            action=request.action,
            stack_path=f"{request.stack_name}/{request.stack_id}",
            resource_name=request.resource_name,
            signal_transport=request.signal_transport,
            physical_name=request.physical_name,
            name=request.name,
            input_values=request.input_values,
        )
        self.derived[config_id] = document.derive_config(
            source_of(source),
            facts,
            config_id=config_id,
            created_at=NOW,
            input_key=request.input_key,
            strict=request.strict,
        )
        if previous is not None:
            self.derived.pop(previous.config_id, None)
        waits = request.signal_transport != "NO_SIGNAL"
        handle = DeploymentHandle(
            request.deployment_id,
            request.server_id,
            config_id,
            {"at": config_id} if waits else None,
        )
        old = self.deployments.get(request.deployment_id)
        state = DeploymentState(
            handle,
            request.action,
            IN_PROGRESS if waits else COMPLETE,
            "Deploy data available" if waits else "Not waiting for outputs signal",
            dict(old.output_values) if old is not None else {},
        )
        self.deployments[request.deployment_id] = state
        return state

    def refresh(self, handle: DeploymentHandle) -> DeploymentState:
        for payload in self._pending.pop(handle.deployment_id, []):
            self.signal(handle, payload)
        return self.deployments[handle.deployment_id]

    def signal(self, handle: DeploymentHandle, data: Mapping[str, Any] | None) -> str:
        state = self.deployments[handle.deployment_id]
        if state.status != IN_PROGRESS:
            return "ignored"
        outputs = self.derived[state.handle.config_id].outputs
        result = document.parse_signal(data or {}, outputs)
        self.deployments[handle.deployment_id] = dataclasses.replace(
            state,
            status=result.status.value,
            status_reason=result.reason,
            output_values=dict(result.outputs),
        )
        return "Signal: received"

    def cancel(self, handle: DeploymentHandle) -> None:
        self.cancelled.append(handle.deployment_id)
        state = self.deployments[handle.deployment_id]
        if state.status == IN_PROGRESS:
            self.deployments[handle.deployment_id] = dataclasses.replace(
                state, status=FAILED, status_reason="Deployment cancelled."
            )

    def get_deployment(self, handle: DeploymentHandle) -> DeploymentState | None:
        return self.deployments.get(handle.deployment_id)

    def remove(self, handle: DeploymentHandle) -> None:
        self.removed.append(handle.deployment_id)
        self.deployments.pop(handle.deployment_id, None)
        self.derived.pop(handle.config_id, None)

    # -- playing the agent --------------------------------------------------------------------

    def agent_signals(self, deployment_id: str, payload: Mapping[str, Any]) -> None:
        """The server's agent signals; the engine sees it at the next refresh."""
        self._pending.setdefault(deployment_id, []).append(payload)

    def current(self, deployment_id: str) -> document.DerivedConfig:
        """The derived config a deployment's current action runs."""
        return self.derived[self.deployments[deployment_id].handle.config_id]


@dataclasses.dataclass
class SoftwareCtx(Context):
    """A resource context with the software deployment services."""

    software: MemorySoftware = dataclasses.field(default_factory=MemorySoftware)
