"""``GET /build_info`` and ``GET /services``: what is serving the API."""

from __future__ import annotations

import falcon

import thermik
from thermik.api import responses
from thermik.api.responses import isotime
from thermik.api.v1.endpoint import Deps, Endpoint, Route


class BuildInfo(Endpoint):
    """API and engine revisions."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Show revisions."""
        ctx = self.authorize(req, "build_info:build_info")
        responses.json(
            resp,
            {
                "api": {"revision": thermik.__version__},
                "engine": {"revision": self.service.engine_revision(ctx)},
            },
        )


class Services(Endpoint):
    """Engine processes (administrators only)."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """List engines."""
        ctx = self.authorize(req, "service:index")
        services = [
            {
                "id": view.id,
                "host": view.host,
                "binary": view.binary,
                "engine_id": view.engine_id,
                "topic": view.topic,
                "status": view.status,
                "report_interval": view.report_interval,
                "created_at": isotime(view.created_at),
                "updated_at": isotime(view.updated_at),
            }
            for view in self.service.list_services(ctx)
        ]
        responses.json(resp, {"services": services})


def routes(deps: Deps) -> list[Route]:
    """Routes of this module."""
    return [Route("/build_info", BuildInfo(deps)), Route("/services", Services(deps))]
