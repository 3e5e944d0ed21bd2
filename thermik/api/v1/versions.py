"""``GET /`` and ``GET /v1``: the version document (openstacksdk discovers it with auth none)."""

from __future__ import annotations

from typing import Any

import falcon

from thermik.api import responses
from thermik.api.v1.endpoint import Deps, Route

#: Paths served without authentication.
OPEN_PATHS = frozenset({"/", "/v1", "/v1/"})


def version_document(req: falcon.Request) -> dict[str, Any]:
    """The versions list, its ``self`` link rooted where the client reached us."""
    href = req.forwarded_prefix + "/v1/"
    return {
        "versions": [{"id": "v1.0", "status": "CURRENT", "links": [{"rel": "self", "href": href}]}]
    }


class Versions:
    """The API versions; 300 Multiple Choices like Heat's root."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        """List versions."""
        responses.json(resp, version_document(req), status=300)


def routes(deps: Deps) -> list[Route]:
    """Routes of this module."""
    versions = Versions()
    return [Route("/", versions, tenant_scoped=False), Route("/v1", versions, tenant_scoped=False)]
