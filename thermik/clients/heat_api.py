"""An HTTP client of Heat's v1 REST API: a remote Thermik (``thermik-api``) or Heat service.

:class:`HeatApi` sends JSON requests under the tenant's base URL
(``http://host:port/v1/<project>``) through a keystoneauth session and answers with the decoded
JSON body. Every failure becomes an error of Thermik's tree with the service's own message
(Heat's ``error.message``), never a URL: a 404 is :class:`~thermik.errors.NotFound`, a 409
:class:`~thermik.errors.Conflict` (``StackExists`` a :class:`~thermik.errors.DuplicateName`),
a 400 :class:`~thermik.errors.InvalidInput`, an unreachable or failing service
:class:`~thermik.errors.RemoteUnavailable`.

:class:`RemoteTarget` says where the service is and who calls it: an explicit endpoint with a
token (or none, for a keystone-less ``thermik-api``), or a cloud of ``clouds.yaml`` (or the
OS_* variables) whose Keystone authenticates the caller and whose catalog names the
orchestration endpoint unless one is given.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

from keystoneauth1 import adapter, noauth, session, token_endpoint
from keystoneauth1 import exceptions as ksa
from openstack import exceptions as sdk
from openstack.config.loader import OpenStackConfig

from thermik import errors
from thermik.clients.errors import to_cloud_error
from thermik.clients.heat_wire import error_of, jsonable, segment

SERVICE_TYPE = "orchestration"
#: Seconds a request may take (a create with a large template included).
TIMEOUT = 120.0


@dataclasses.dataclass(frozen=True)
class RemoteTarget:
    """Where the remote service is and who calls it (see the module docstring).

    ``endpoint`` without a project (ending in ``/v1``) gets ``project`` appended.
    """

    endpoint: str | None = None
    token: str | None = dataclasses.field(default=None, repr=False)
    cloud: str | None = None
    config_file: str | None = None
    project: str | None = None


def _decoded(response: Any) -> Any:
    if not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        return None


class HeatApi:
    """Heat v1 calls under one tenant's base URL (see the module docstring)."""

    def __init__(self, client: adapter.Adapter, base_url: str) -> None:
        self._client = client
        #: ``http://host:port/v1/<project>``: every path is relative to it.
        self.base_url = base_url.rstrip("/")

    @classmethod
    def open(cls, target: RemoteTarget) -> HeatApi:
        """A client of the service ``target`` names (authenticating first, with a cloud)."""
        try:
            client = _adapter(target)
            base = target.endpoint or client.get_endpoint()
            if not base:
                raise errors.RemoteUnavailable(
                    f"the cloud {target.cloud} has no orchestration endpoint in its catalog; "
                    "give it with --os-endpoint"
                )
            if urlsplit(base).path.rstrip("/").endswith("/v1"):
                base = f"{base.rstrip('/')}/{segment(_project(client, target))}"
        except (ksa.ClientException, sdk.SDKException) as exc:
            raise _unreachable(exc) from None
        return cls(client, base)

    @property
    def root(self) -> str:
        """``http://host:port/v1``: where the tenant's base URL is."""
        return self.base_url.rsplit("/", 1)[0]

    @property
    def tenant(self) -> str:
        """The project the base URL names."""
        return unquote(self.base_url.rsplit("/", 1)[1])

    def call(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
    ) -> Any:
        """``method`` on ``path`` (under the base URL): the decoded JSON answer (None when
        there is no body)."""
        return _decoded(self._send(method, path, body=body, params=params))

    def location(self, path: str) -> str | None:
        """Where a ``GET`` of ``path`` redirects to (Heat's stack lookup), None if not."""
        response = self._send("GET", path, redirect=False)
        return response.headers.get("Location") if response.status_code in (301, 302) else None

    def close(self) -> None:
        """Release the session's connections."""
        self._client.session.session.close()

    def _send(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
        redirect: bool = True,
    ) -> Any:
        kwargs: dict[str, Any] = {"headers": {"Accept": "application/json"}}
        if body is not None:
            kwargs["data"] = json.dumps(body, default=jsonable)
            kwargs["headers"]["Content-Type"] = "application/json"
        try:
            response = self._client.request(
                f"{self.base_url}{path}",
                method,
                params=dict(params or {}),
                raise_exc=False,
                redirect=redirect,
                **kwargs,
            )
        except (ksa.ClientException, sdk.SDKException) as exc:
            raise _unreachable(exc) from None
        if response.status_code >= 400:
            raise error_of(response.status_code, _decoded(response))
        return response


def _adapter(target: RemoteTarget) -> adapter.Adapter:
    """The keystoneauth adapter: the cloud's authenticated session, or the endpoint alone."""
    if target.cloud:
        loader = OpenStackConfig(config_files=[target.config_file] if target.config_file else None)
        region = loader.get_one(cloud=target.cloud)
        return adapter.Adapter(
            session=region.get_session(),
            service_type=SERVICE_TYPE,
            interface=region.get_interface(SERVICE_TYPE),
            region_name=region.get_region_name(SERVICE_TYPE),
            # clouds.yaml may name it (orchestration_endpoint_override); else the catalog.
            endpoint_override=target.endpoint or region.get_endpoint(SERVICE_TYPE),
        )
    if not target.endpoint:
        raise errors.InvalidInput(
            "a remote service needs --os-endpoint URL, or --os-cloud NAME (the cloud's "
            "catalog names it)"
        )
    plugin: Any = (
        token_endpoint.Token(target.endpoint, target.token)
        if target.token
        else noauth.NoAuth(endpoint=target.endpoint)
    )
    return adapter.Adapter(session=session.Session(auth=plugin, timeout=TIMEOUT))


def _project(client: adapter.Adapter, target: RemoteTarget) -> str:
    """The project an endpoint without one serves: the token's, else ``target.project``."""
    project = None
    if target.cloud:
        project = client.get_project_id()
    project = project or target.project
    if not project:
        raise errors.InvalidInput(
            "the endpoint names no project (it ends in /v1): give the whole "
            "http://HOST:PORT/v1/PROJECT, or --project"
        )
    return str(project)


def _unreachable(exc: BaseException) -> errors.ThermikError:
    """A keystoneauth or openstacksdk failure before the service answered."""
    if isinstance(exc, sdk.ConfigException):
        return errors.ConfigError(f"the cloud cannot be used: {exc.message}")
    cloud_error = to_cloud_error(exc, SERVICE_TYPE)
    if isinstance(exc, ksa.HttpError) and cloud_error.service == "identity":
        return errors.Unauthorized(cloud_error.message)
    return errors.RemoteUnavailable(cloud_error.message)
