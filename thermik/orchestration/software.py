"""Software configs and deployments through the Store, scoped by tenant.

Configs are immutable; their inputs and outputs are normalised the way Heat's
``format_software_config`` shows them. Deployments refer to a config of the same tenant.

As in Heat, creating or deleting a deployment, and updating one to another config, publishes
the metadata of its server (when the server is a DeployedServer of this tenant managed on this
database) so the server's agent sees the change; an update of status or outputs alone does not
(the document lists configs only).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from thermik.api.boundary import (
    DeploymentRequest,
    DeploymentUpdate,
    Json,
    RequestContext,
    SoftwareConfigRequest,
    SoftwareConfigView,
    SoftwareDeploymentView,
)
from thermik.errors import InvalidInput, NotFound
from thermik.orchestration.base import Base
from thermik.orchestration.views import config_view, deployment_view
from thermik.persistence.software_values import (
    DeploymentChanges,
    NewSoftwareDeployment,
    SoftwareConfig,
    SoftwareDeployment,
)
from thermik.persistence.values import KEEP

INPUT_TYPES = ("String", "Number", "CommaDelimitedList", "Json", "Boolean")
DEPLOYMENT_STATUSES = ("IN_PROGRESS", "COMPLETE", "FAILED")


def _io_items(items: Sequence[Any], what: str) -> list[dict[str, Any]]:
    out = []
    for index, item in enumerate(items):
        where = (what, index)
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            raise InvalidInput(f"each of {what} must be a map with a name", path=where)
        kind = item.get("type", "String")
        if kind not in INPUT_TYPES:
            raise InvalidInput(
                f"type {kind} is not one of: " + ", ".join(INPUT_TYPES), path=(*where, "type")
            )
        out.append({**item, "type": kind})
    return out


def normalise_inputs(items: Sequence[Any]) -> list[dict[str, Any]]:
    """Config inputs with a type; ``replace_on_change`` only where it is true."""
    found = _io_items(items, "inputs")
    for item in found:
        if not item.get("replace_on_change"):
            item.pop("replace_on_change", None)
    return found


def normalise_outputs(items: Sequence[Any]) -> list[dict[str, Any]]:
    """Config outputs with a type and ``error_output``."""
    return [{"error_output": False, **item} for item in _io_items(items, "outputs")]


def _status(value: str, field: str) -> str:
    if value not in DEPLOYMENT_STATUSES:
        raise InvalidInput(
            f"{field} {value} is not one of: " + ", ".join(DEPLOYMENT_STATUSES), path=(field,)
        )
    return value


class SoftwareOperations(Base):
    """The software config and deployment entry points."""

    def _config(self, ctx: RequestContext, config_id: str) -> SoftwareConfig:
        try:
            return self.store.get_software_config(config_id, tenant=ctx.tenant)
        except NotFound:
            raise NotFound(f"The config ({config_id}) could not be found.") from None

    def _deployment(self, ctx: RequestContext, deployment_id: str) -> SoftwareDeployment:
        try:
            return self.store.get_software_deployment(deployment_id, tenant=ctx.tenant)
        except NotFound:
            raise NotFound(f"Deployment with id {deployment_id} not found") from None

    def create_software_config(
        self, ctx: RequestContext, request: SoftwareConfigRequest
    ) -> SoftwareConfigView:
        if not isinstance(request.options, Mapping):
            raise InvalidInput("options must be a map", path=("options",))
        body = {
            "config": request.config,
            "inputs": normalise_inputs(request.inputs),
            "outputs": normalise_outputs(request.outputs),
            "options": dict(request.options),
        }
        stored = self.store.create_software_config(
            request.name or "", request.group or "Heat::Ungrouped", body, ctx.tenant
        )
        return config_view(stored)

    def list_software_configs(
        self, ctx: RequestContext, *, limit: int | None = None, marker: str | None = None
    ) -> Sequence[SoftwareConfigView]:
        if marker is not None:
            self._config(ctx, marker)
        found = self.store.list_software_configs(ctx.tenant, marker=marker, limit=limit)
        return [config_view(config) for config in found]

    def show_software_config(self, ctx: RequestContext, config_id: str) -> SoftwareConfigView:
        return config_view(self._config(ctx, config_id))

    def delete_software_config(self, ctx: RequestContext, config_id: str) -> None:
        self._config(ctx, config_id)
        self.store.delete_software_config(config_id, tenant=ctx.tenant)

    def create_software_deployment(
        self, ctx: RequestContext, request: DeploymentRequest
    ) -> SoftwareDeploymentView:
        self._config(ctx, request.config_id)
        new = NewSoftwareDeployment(
            config_id=request.config_id,
            server_id=request.server_id,
            tenant=ctx.tenant,
            input_values=dict(request.input_values),
            action=request.action,
            status=_status(request.status, "status"),
            status_reason=request.status_reason,
            stack_user_project_id=request.stack_user_project_id,
        )
        created = self.store.create_software_deployment(new)
        self._publish(ctx, created.server_id)
        return deployment_view(created)

    def list_software_deployments(
        self, ctx: RequestContext, *, server_id: str | None = None
    ) -> Sequence[SoftwareDeploymentView]:
        found = self.store.list_software_deployments(tenant=ctx.tenant, server_id=server_id)
        return [deployment_view(deployment) for deployment in found]

    def show_software_deployment(
        self, ctx: RequestContext, deployment_id: str
    ) -> SoftwareDeploymentView:
        return deployment_view(self._deployment(ctx, deployment_id))

    def update_software_deployment(
        self, ctx: RequestContext, deployment_id: str, update: DeploymentUpdate
    ) -> SoftwareDeploymentView:
        self._deployment(ctx, deployment_id)
        if update.config_id is not None:
            self._config(ctx, update.config_id)
        changes = DeploymentChanges(
            config_id=KEEP if update.config_id is None else update.config_id,
            input_values=KEEP if update.input_values is None else dict(update.input_values),
            output_values=KEEP if update.output_values is None else dict(update.output_values),
            action=KEEP if update.action is None else update.action,
            status=KEEP if update.status is None else _status(update.status, "status"),
            status_reason=KEEP if update.status_reason is None else update.status_reason,
        )
        updated = self.store.update_software_deployment(deployment_id, changes)
        if update.config_id is not None:
            self._publish(ctx, updated.server_id)
        return deployment_view(updated)

    def delete_software_deployment(self, ctx: RequestContext, deployment_id: str) -> None:
        found = self._deployment(ctx, deployment_id)
        self.store.delete_software_deployment(deployment_id)
        self._publish(ctx, found.server_id)

    def _publish(self, ctx: RequestContext, server_id: str) -> None:
        """The server's deployments changed: its agent must be served them."""
        if self.servers is not None:
            self.servers.deployments_changed(server_id, ctx.tenant)

    def server_deployments_metadata(
        self, ctx: RequestContext, server_id: str
    ) -> Sequence[Mapping[str, Json]]:
        entries = []
        for deployment in self.store.list_software_deployments(
            tenant=ctx.tenant, server_id=server_id
        ):
            view = config_view(self._config(ctx, deployment.config_id))
            entries.append(
                {
                    "id": view.id,
                    "name": view.name,
                    "group": view.group,
                    "config": view.config,
                    "inputs": [dict(item) for item in view.inputs],
                    "outputs": [dict(item) for item in view.outputs],
                    "options": dict(view.options),
                    "creation_time": _isotime(view.creation_time),
                }
            )
        return sorted(entries, key=lambda entry: str(entry["name"]))


def _isotime(value: datetime.datetime | None) -> str | None:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value is not None else None
