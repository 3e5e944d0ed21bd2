"""What templates can use: resource types, template versions and their functions."""

from __future__ import annotations

import falcon

from thermik import errors
from thermik.api import responses
from thermik.api.query import Query
from thermik.api.v1.endpoint import Deps, Endpoint, Route

TEMPLATE_TYPES = ("cfn", "hot")


class ResourceTypes(Endpoint):
    """``/resource_types``: names, or ``{resource_type, description}`` with descriptions."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """List resource types."""
        ctx = self.authorize(req, "stacks:list_resource_types")
        query = Query(req)
        views = self.service.list_resource_types(
            ctx,
            name=query.last("name"),
            version=query.last("version"),
            support_status=query.last("support_status"),
        )
        if query.boolean("with_description"):
            listed: list[object] = [
                {"resource_type": view.name, "description": view.description} for view in views
            ]
        else:
            listed = [view.name for view in views]
        responses.json(resp, {"resource_types": listed})


class ResourceType(Endpoint):
    """``/resource_types/{type_name}``: the type's schema."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, type_name: str) -> None:
        """Show a type (its description only ``with_description``, as in Heat)."""
        ctx = self.authorize(req, "stacks:resource_schema")
        with_description = Query(req).boolean("with_description")
        shown = self.service.show_resource_type(ctx, type_name, with_description=with_description)
        responses.json(resp, dict(shown))


class ResourceTypeTemplate(Endpoint):
    """``/resource_types/{type_name}/template``: a template wrapping the type."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, type_name: str) -> None:
        """Generate the template (``template_type`` cfn, the default, or hot)."""
        ctx = self.authorize(req, "stacks:generate_template")
        template_type = (Query(req).last("template_type") or "cfn").lower()
        if template_type not in TEMPLATE_TYPES:
            raise errors.InvalidRequest(
                f"Template type {template_type!r} is not valid, expected cfn or hot",
                parameter="template_type",
            )
        template = self.service.resource_type_template(ctx, type_name, template_type)
        responses.json(resp, dict(template))


class TemplateVersions(Endpoint):
    """``/template_versions``."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """List template versions."""
        ctx = self.authorize(req, "stacks:list_template_versions")
        versions = [
            {"version": view.version, "type": view.type, "aliases": list(view.aliases)}
            for view in self.service.list_template_versions(ctx)
        ]
        responses.json(resp, {"template_versions": versions})


class TemplateFunctions(Endpoint):
    """``/template_versions/{template_version}/functions``."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, template_version: str) -> None:
        """List the functions of a version."""
        ctx = self.authorize(req, "stacks:list_template_functions")
        views = self.service.list_template_functions(
            ctx,
            template_version,
            with_condition_func=Query(req).boolean("with_condition_func"),
        )
        functions = [{"functions": view.name, "description": view.description} for view in views]
        responses.json(resp, {"template_functions": functions})


def routes(deps: Deps) -> list[Route]:
    """Routes of this module."""
    return [
        Route("/resource_types", ResourceTypes(deps)),
        Route("/resource_types/{type_name}", ResourceType(deps)),
        Route("/resource_types/{type_name}/template", ResourceTypeTemplate(deps)),
        Route("/template_versions", TemplateVersions(deps)),
        Route("/template_versions/{template_version}/functions", TemplateFunctions(deps)),
    ]
