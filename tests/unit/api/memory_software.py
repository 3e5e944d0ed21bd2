"""The software config/deployment part of the in-test OrchestrationService."""

from __future__ import annotations

import dataclasses
import datetime
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from thermik import errors
from thermik.api.boundary import (
    DeploymentRequest,
    DeploymentUpdate,
    RequestContext,
    SoftwareConfigRequest,
    SoftwareConfigView,
    SoftwareDeploymentView,
)

CREATED = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


class MemorySoftware:
    """Configs and deployments in dicts keyed by (tenant, id)."""

    def __init__(self) -> None:
        self.configs: dict[tuple[str, str], SoftwareConfigView] = {}
        self.deployments: dict[tuple[str, str], SoftwareDeploymentView] = {}

    def create_software_config(
        self, ctx: RequestContext, request: SoftwareConfigRequest
    ) -> SoftwareConfigView:
        inputs = tuple({"type": "String", **item} for item in request.inputs)
        outputs = tuple({"type": "String", "error_output": False, **o} for o in request.outputs)
        view = SoftwareConfigView(
            id=str(uuid.uuid4()),
            name=request.name,
            group=request.group,
            config=request.config,
            inputs=inputs,
            outputs=outputs,
            options=dict(request.options),
            creation_time=CREATED,
        )
        self.configs[(ctx.tenant, view.id)] = view
        return view

    def list_software_configs(
        self, ctx: RequestContext, *, limit: int | None = None, marker: str | None = None
    ) -> Sequence[SoftwareConfigView]:
        views = [view for (tenant, _), view in self.configs.items() if tenant == ctx.tenant]
        if marker is not None:
            ids = [view.id for view in views]
            views = views[ids.index(marker) + 1 :] if marker in ids else []
        return views[:limit] if limit is not None else views

    def show_software_config(self, ctx: RequestContext, config_id: str) -> SoftwareConfigView:
        try:
            return self.configs[(ctx.tenant, config_id)]
        except KeyError:
            raise errors.NotFound(f"Software config {config_id} not found") from None

    def delete_software_config(self, ctx: RequestContext, config_id: str) -> None:
        self.show_software_config(ctx, config_id)
        del self.configs[(ctx.tenant, config_id)]

    def create_software_deployment(
        self, ctx: RequestContext, request: DeploymentRequest
    ) -> SoftwareDeploymentView:
        self.show_software_config(ctx, request.config_id)
        view = SoftwareDeploymentView(
            id=str(uuid.uuid4()),
            config_id=request.config_id,
            server_id=request.server_id,
            action=request.action,
            status=request.status,
            status_reason=request.status_reason,
            input_values=dict(request.input_values),
            creation_time=CREATED,
        )
        self.deployments[(ctx.tenant, view.id)] = view
        return view

    def list_software_deployments(
        self, ctx: RequestContext, *, server_id: str | None = None
    ) -> Sequence[SoftwareDeploymentView]:
        return [
            view
            for (tenant, _), view in self.deployments.items()
            if tenant == ctx.tenant and server_id in (None, view.server_id)
        ]

    def show_software_deployment(
        self, ctx: RequestContext, deployment_id: str
    ) -> SoftwareDeploymentView:
        try:
            return self.deployments[(ctx.tenant, deployment_id)]
        except KeyError:
            raise errors.NotFound(f"Deployment {deployment_id} not found") from None

    def update_software_deployment(
        self, ctx: RequestContext, deployment_id: str, update: DeploymentUpdate
    ) -> SoftwareDeploymentView:
        view = self.show_software_deployment(ctx, deployment_id)
        changes = {
            field.name: getattr(update, field.name)
            for field in dataclasses.fields(update)
            if getattr(update, field.name) is not None
        }
        view = dataclasses.replace(view, **changes, updated_time=CREATED)
        self.deployments[(ctx.tenant, deployment_id)] = view
        return view

    def delete_software_deployment(self, ctx: RequestContext, deployment_id: str) -> None:
        self.show_software_deployment(ctx, deployment_id)
        del self.deployments[(ctx.tenant, deployment_id)]

    def server_deployments_metadata(
        self, ctx: RequestContext, server_id: str
    ) -> Sequence[Mapping[str, Any]]:
        entries = []
        for deployment in self.list_software_deployments(ctx, server_id=server_id):
            config = self.show_software_config(ctx, deployment.config_id)
            inputs = [
                {**item, "value": deployment.input_values.get(item["name"], item.get("default"))}
                for item in config.inputs
            ]
            entries.append(
                {
                    "id": config.id,
                    "name": config.name,
                    "group": config.group,
                    "config": config.config,
                    "inputs": inputs,
                    "outputs": list(config.outputs),
                    "options": dict(config.options),
                    "creation_time": "2026-01-01T00:00:00Z",
                }
            )
        return sorted(entries, key=lambda entry: str(entry["name"]))
