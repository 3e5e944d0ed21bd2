"""Software configs and deployments, and a server's deployment metadata."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import falcon

from thermik.api import body, fields, formatting, responses
from thermik.api.admissible import NAME_LENGTH, PROJECT_LENGTH, STATE_LENGTH
from thermik.api.boundary import DeploymentRequest, DeploymentUpdate, SoftwareConfigRequest
from thermik.api.query import Query
from thermik.api.v1.endpoint import Deps, Endpoint, Route


def config_request(document: Mapping[str, Any]) -> SoftwareConfigRequest:
    """The body of a config create; ``config`` may be text or structured data."""
    return SoftwareConfigRequest(
        name=fields.optional_string(document, "name", max_length=NAME_LENGTH),
        group=fields.optional_string(document, "group", max_length=NAME_LENGTH)
        or "Heat::Ungrouped",
        config=document.get("config"),
        inputs=fields.object_list(document, "inputs"),
        outputs=fields.object_list(document, "outputs"),
        options=fields.mapping(document, "options"),
    )


def deployment_request(document: Mapping[str, Any]) -> DeploymentRequest:
    """The body of a deployment create."""
    return DeploymentRequest(
        config_id=fields.required_string(document, "config_id"),
        server_id=fields.required_string(document, "server_id", max_length=NAME_LENGTH),
        input_values=fields.mapping(document, "input_values"),
        action=fields.optional_string(document, "action", max_length=STATE_LENGTH) or "INIT",
        status=fields.optional_string(document, "status", max_length=STATE_LENGTH) or "COMPLETE",
        status_reason=fields.optional_string(document, "status_reason") or "",
        stack_user_project_id=fields.optional_string(
            document, "stack_user_project_id", max_length=PROJECT_LENGTH
        ),
    )


def deployment_update(document: Mapping[str, Any]) -> DeploymentUpdate:
    """The body of a deployment update; null or absent fields keep their value."""
    return DeploymentUpdate(
        config_id=fields.optional_string(document, "config_id"),
        input_values=fields.optional_mapping(document, "input_values"),
        output_values=fields.optional_mapping(document, "output_values"),
        action=fields.optional_string(document, "action", max_length=STATE_LENGTH),
        status=fields.optional_string(document, "status", max_length=STATE_LENGTH),
        status_reason=fields.optional_string(document, "status_reason"),
    )


class SoftwareConfigs(Endpoint):
    """``/software_configs``: list (``limit``, ``marker``) and create (200, as Heat)."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """List configs (summaries)."""
        ctx = self.authorize(req, "software_configs:index")
        query = Query(req)
        views = self.service.list_software_configs(
            ctx, limit=query.integer("limit"), marker=query.last("marker") or None
        )
        configs = [formatting.software_config(view, detail=False) for view in views]
        responses.json(resp, {"software_configs": configs})

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Create a config."""
        ctx = self.authorize(req, "software_configs:create")
        request = config_request(body.read_object(req, self.limits.max_json_body_size))
        view = self.service.create_software_config(ctx, request)
        responses.json(resp, {"software_config": formatting.software_config(view)})


class SoftwareConfig(Endpoint):
    """``/software_configs/{config_id}``."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, config_id: str) -> None:
        """Show a config."""
        ctx = self.authorize(req, "software_configs:show")
        view = self.service.show_software_config(ctx, config_id)
        responses.json(resp, {"software_config": formatting.software_config(view)})

    def on_delete(self, req: falcon.Request, resp: falcon.Response, config_id: str) -> None:
        """Delete a config: 204."""
        ctx = self.authorize(req, "software_configs:delete")
        self.service.delete_software_config(ctx, config_id)
        responses.no_content(resp)


class SoftwareDeployments(Endpoint):
    """``/software_deployments``: list (``server_id``) and create (200, as Heat)."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """List deployments."""
        ctx = self.authorize(req, "software_deployments:index")
        server_id = Query(req).last("server_id") or None
        views = self.service.list_software_deployments(ctx, server_id=server_id)
        deployments = [formatting.software_deployment(view) for view in views]
        responses.json(resp, {"software_deployments": deployments})

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Create a deployment."""
        ctx = self.authorize(req, "software_deployments:create")
        request = deployment_request(body.read_object(req, self.limits.max_json_body_size))
        view = self.service.create_software_deployment(ctx, request)
        responses.json(resp, {"software_deployment": formatting.software_deployment(view)})


class SoftwareDeployment(Endpoint):
    """``/software_deployments/{deployment_id}``."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, deployment_id: str) -> None:
        """Show a deployment."""
        ctx = self.authorize(req, "software_deployments:show")
        view = self.service.show_software_deployment(ctx, deployment_id)
        responses.json(resp, {"software_deployment": formatting.software_deployment(view)})

    def on_put(self, req: falcon.Request, resp: falcon.Response, deployment_id: str) -> None:
        """Update a deployment."""
        ctx = self.authorize(req, "software_deployments:update")
        update = deployment_update(body.read_object(req, self.limits.max_json_body_size))
        view = self.service.update_software_deployment(ctx, deployment_id, update)
        responses.json(resp, {"software_deployment": formatting.software_deployment(view)})

    def on_delete(self, req: falcon.Request, resp: falcon.Response, deployment_id: str) -> None:
        """Delete a deployment: 204."""
        ctx = self.authorize(req, "software_deployments:delete")
        self.service.delete_software_deployment(ctx, deployment_id)
        responses.no_content(resp)


class ServerMetadata(Endpoint):
    """``/software_deployments/metadata/{server_id}``: the server's derived configs."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, server_id: str) -> None:
        """The deployments list a server's agent would receive, sorted by name."""
        ctx = self.authorize(req, "software_deployments:metadata")
        entries = self.service.server_deployments_metadata(ctx, server_id)
        responses.json(resp, {"metadata": [dict(entry) for entry in entries]})


def routes(deps: Deps) -> list[Route]:
    """Routes of this module."""
    return [
        Route("/software_configs", SoftwareConfigs(deps)),
        Route("/software_configs/{config_id}", SoftwareConfig(deps)),
        Route("/software_deployments", SoftwareDeployments(deps)),
        Route("/software_deployments/metadata/{server_id}", ServerMetadata(deps)),
        Route("/software_deployments/{deployment_id}", SoftwareDeployment(deps)),
    ]
