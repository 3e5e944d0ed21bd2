"""Software configs and deployments of the remote service (``/software_configs``,
``/software_deployments``), the part of the remote orchestration service that
``thermik software ...`` calls."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from thermik.api.boundary import (
    DeploymentRequest,
    DeploymentUpdate,
    RequestContext,
    SoftwareConfigRequest,
    SoftwareConfigView,
    SoftwareDeploymentView,
)
from thermik.clients.heat_wire import HeatTransport, segment
from thermik.remote.views import mapping, timestamp

Json = Any


def config_view(document: Mapping[str, Any]) -> SoftwareConfigView:
    """A software config (of a list: without config, inputs, outputs and options)."""
    return SoftwareConfigView(
        id=str(document.get("id")),
        name=document.get("name"),
        group=str(document.get("group") or "Heat::Ungrouped"),
        config=document.get("config"),
        inputs=tuple(document.get("inputs") or ()),
        outputs=tuple(document.get("outputs") or ()),
        options=document.get("options") or {},
        creation_time=timestamp(document.get("creation_time")),
        project=document.get("project"),
    )


def deployment_view(document: Mapping[str, Any]) -> SoftwareDeploymentView:
    """A software deployment."""
    return SoftwareDeploymentView(
        id=str(document.get("id")),
        config_id=str(document.get("config_id")),
        server_id=str(document.get("server_id")),
        action=str(document.get("action")),
        status=str(document.get("status")),
        status_reason=document.get("status_reason") or "",
        input_values=document.get("input_values") or {},
        output_values=document.get("output_values") or {},
        creation_time=timestamp(document.get("creation_time")),
        updated_time=timestamp(document.get("updated_time")),
    )


def _body(request: Any) -> dict[str, Any]:
    """A request's fields as a body, those it leaves unset (None) out."""
    return {
        field.name: value
        for field in dataclasses.fields(request)
        if (value := getattr(request, field.name)) is not None
    }


class RemoteSoftware:
    """Software configs and deployments over the remote service's API."""

    api: HeatTransport

    def _config(self, method: str, path: str, body: Any = None) -> SoftwareConfigView:
        answer = mapping(self.api.call(method, path, body=body))
        return config_view(mapping(answer.get("software_config")))

    def _deployment(self, method: str, path: str, body: Any = None) -> SoftwareDeploymentView:
        answer = mapping(self.api.call(method, path, body=body))
        return deployment_view(mapping(answer.get("software_deployment")))

    def create_software_config(
        self, ctx: RequestContext, request: SoftwareConfigRequest
    ) -> SoftwareConfigView:
        return self._config("POST", "/software_configs", _body(request))

    def list_software_configs(
        self, ctx: RequestContext, *, limit: int | None = None, marker: str | None = None
    ) -> Sequence[SoftwareConfigView]:
        asked = {"limit": limit, "marker": marker}
        params = {key: value for key, value in asked.items() if value is not None}
        found = mapping(self.api.call("GET", "/software_configs", params=params))
        return [config_view(item) for item in found.get("software_configs") or ()]

    def show_software_config(self, ctx: RequestContext, config_id: str) -> SoftwareConfigView:
        return self._config("GET", f"/software_configs/{segment(config_id)}")

    def delete_software_config(self, ctx: RequestContext, config_id: str) -> None:
        self.api.call("DELETE", f"/software_configs/{segment(config_id)}")

    def create_software_deployment(
        self, ctx: RequestContext, request: DeploymentRequest
    ) -> SoftwareDeploymentView:
        return self._deployment("POST", "/software_deployments", _body(request))

    def list_software_deployments(
        self, ctx: RequestContext, *, server_id: str | None = None
    ) -> Sequence[SoftwareDeploymentView]:
        params = {"server_id": server_id} if server_id else {}
        found = mapping(self.api.call("GET", "/software_deployments", params=params))
        return [deployment_view(item) for item in found.get("software_deployments") or ()]

    def show_software_deployment(
        self, ctx: RequestContext, deployment_id: str
    ) -> SoftwareDeploymentView:
        return self._deployment("GET", f"/software_deployments/{segment(deployment_id)}")

    def update_software_deployment(
        self, ctx: RequestContext, deployment_id: str, update: DeploymentUpdate
    ) -> SoftwareDeploymentView:
        path = f"/software_deployments/{segment(deployment_id)}"
        return self._deployment("PUT", path, _body(update))

    def delete_software_deployment(self, ctx: RequestContext, deployment_id: str) -> None:
        self.api.call("DELETE", f"/software_deployments/{segment(deployment_id)}")

    def server_deployments_metadata(
        self, ctx: RequestContext, server_id: str
    ) -> Sequence[Mapping[str, Json]]:
        path = f"/software_deployments/metadata/{segment(server_id)}"
        found = mapping(self.api.call("GET", path))
        return [dict(item) for item in found.get("metadata") or () if isinstance(item, Mapping)]
