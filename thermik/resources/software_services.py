"""What software config and deployment plugins need from the engine, as a typed Protocol.

The plugins (:mod:`~thermik.resources.software_config`, :mod:`~thermik.resources.
software_deployment`, :mod:`~thermik.resources.deployed_server`) decide *what* happens: which
action runs, when a deployment is replaced, what its attributes are. The engine side
(:mod:`thermik.deployments`) implements :class:`SoftwareDeploymentServices` over the Store, the
delivery backend and one metadata actor per server: it stores configs, derives the config a
deployment action runs, publishes the server's metadata and collects signals.

A plugin finds the services on its context with :func:`software_services`; a context without
them (a test, an engine built without delivery) makes the plugin fail with a clear error.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from thermik.errors import PluginError
from thermik.resources.context import ResourceContext

IN_PROGRESS, COMPLETE, FAILED = "IN_PROGRESS", "COMPLETE", "FAILED"
NO_SIGNAL = "NO_SIGNAL"
#: The resource data key under which a server keeps its endpoint record (the engine finds a
#: server's endpoint there, by the server's physical id).
SERVER_ENDPOINT_KEY = "metadata_endpoint"


@dataclasses.dataclass(frozen=True, slots=True)
class ConfigData:
    """A software config as Heat's software-config API shows it (JSON-able values)."""

    name: str
    group: str
    config: Any
    inputs: tuple[Mapping[str, Any], ...] = ()
    outputs: tuple[Mapping[str, Any], ...] = ()
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True, slots=True)
class ServerEndpoint:
    """A provisioned server endpoint.

    ``record`` is opaque to plugins: the server keeps it, as JSON, under
    :data:`SERVER_ENDPOINT_KEY` of its resource data. ``agent_config`` is the metadata
    document's ``os-collect-config`` section, which configures the server's agent.
    """

    record: Mapping[str, Any]
    agent_config: Mapping[str, Any]


@dataclasses.dataclass(frozen=True, slots=True)
class ActionRequest:
    """One deployment action to run on a server: what its derived config is made of.

    ``resource_name`` is what the server sees as ``deploy_resource_name``; ``owner`` is the
    logical resource to wake when a signal arrives (a group's members wake the group).
    ``input_key`` is set for structured deployments: maps ``{input_key: name}`` inside the
    config are replaced by the input's value (``strict``: a missing value is an error).
    """

    deployment_id: str
    server_id: str
    tenant: str
    stack_id: str
    stack_name: str
    resource_name: str
    owner: str
    action: str
    config_id: str | None
    input_values: Mapping[str, Any]
    signal_transport: str
    physical_name: str
    name: str | None = None
    input_key: str | None = None
    strict: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class DeploymentHandle:
    """What a plugin keeps (in its resource data) to find its deployment's current action.

    ``signal`` is opaque to plugins: where the engine collects this action's signal.
    """

    deployment_id: str
    server_id: str
    config_id: str
    signal: Mapping[str, Any] | None = None

    def to_json(self) -> str:
        """The handle as a JSON string."""
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> DeploymentHandle:
        """A handle stored with :meth:`to_json`."""
        data = json.loads(text)
        return cls(
            deployment_id=str(data["deployment_id"]),
            server_id=str(data["server_id"]),
            config_id=str(data["config_id"]),
            signal=data.get("signal"),
        )


@dataclasses.dataclass(frozen=True, slots=True)
class DeploymentState:
    """A deployment as stored: its current action, status and output values."""

    handle: DeploymentHandle
    action: str
    status: str
    status_reason: str
    output_values: Mapping[str, Any] = dataclasses.field(default_factory=dict)


@runtime_checkable
class SoftwareDeploymentServices(Protocol):
    """The engine's software config store, server endpoints and deployment machinery.

    Every method may block on the database or the delivery backend: plugins call them from
    their actions, which the engine runs on an executor.
    """

    def create_config(self, tenant: str, config: ConfigData) -> str:
        """Store an immutable config; its id."""
        ...

    def get_config(self, config_id: str, tenant: str) -> ConfigData:
        """A stored config. Raises NotFound."""
        ...

    def delete_config(self, config_id: str) -> None:
        """Delete a config; a missing one is not an error."""
        ...

    def provision_server(
        self,
        server_id: str,
        transport: str,
        metadata: Mapping[str, Any],
        *,
        credentials: Mapping[str, str] | None = None,
        default_collectors: Sequence[str] = (),
    ) -> ServerEndpoint:
        """Create the server's metadata endpoint and publish its document (``metadata`` plus
        the deployments). ``credentials`` are the agent's own where the transport needs them
        (ZAQAR_MESSAGE: ``auth_url``, ``user_id``, ``password``, ``project_id``,
        ``region_name``); ``default_collectors`` come before the transport's in the agent's
        configuration. Raises PluginError when the transport cannot be offered."""
        ...

    def reserve_server(
        self,
        name: str,
        transport: str,
        metadata: Mapping[str, Any],
        *,
        credentials: Mapping[str, str] | None = None,
        default_collectors: Sequence[str] = (),
    ) -> ServerEndpoint:
        """Create the metadata endpoint of a server that does not exist yet (a Nova server boots
        with its agent's configuration), named by ``name`` (unique per server, e.g. the
        resource version id), publishing nothing. Keep its ``record`` under
        :data:`SERVER_ENDPOINT_KEY` before creating the server, then :meth:`bind_server` it
        to the server's id, or :meth:`revoke_endpoint` it if the server is not created."""
        ...

    def bind_server(self, server_id: str, record: Mapping[str, Any]) -> ServerEndpoint:
        """The endpoint of ``record`` (from :meth:`reserve_server`) now serves the server with
        that id: publish its document. Idempotent; the server is then :meth:`release_server`d
        like a provisioned one."""
        ...

    def revoke_endpoint(self, record: Mapping[str, Any]) -> None:
        """Revoke a reserved endpoint that was never bound (missing is not an error)."""
        ...

    def server_agent_config(self, server_id: str) -> Mapping[str, Any] | None:
        """The ``os-collect-config`` section of a provisioned server, or None."""
        ...

    def release_server(self, server_id: str) -> None:
        """Revoke the server's endpoint and forget it (missing is not an error)."""
        ...

    def start_action(
        self, request: ActionRequest, previous: DeploymentHandle | None
    ) -> DeploymentState:
        """Derive the action's config, create or update the deployment, publish the server's
        metadata. ``previous`` is the handle of the action it supersedes, whose derived config
        and signal endpoint are dropped."""
        ...

    def refresh(self, handle: DeploymentHandle) -> DeploymentState:
        """The deployment now, after collecting signals that arrived and checking delivery.

        A deployment whose server's metadata cannot be delivered is FAILED with the reason.
        """
        ...

    def signal(self, handle: DeploymentHandle, data: Mapping[str, Any] | None) -> str:
        """Apply a signal sent to the deployment; the event reason.

        Ignored unless the deployment is IN_PROGRESS. Raises InvalidSignal for malformed data.
        """
        ...

    def cancel(self, handle: DeploymentHandle) -> None:
        """Fail an IN_PROGRESS deployment with "Deployment cancelled."."""
        ...

    def get_deployment(self, handle: DeploymentHandle) -> DeploymentState | None:
        """The stored deployment, or None once deleted."""
        ...

    def remove(self, handle: DeploymentHandle) -> None:
        """Delete the deployment, its derived config and signal endpoint; republish."""
        ...


class SoftwareContext(ResourceContext, Protocol):
    """A resource context that offers the software deployment services."""

    @property
    def software(self) -> SoftwareDeploymentServices:
        """The engine's software deployment services."""
        ...


def software_services(ctx: ResourceContext) -> SoftwareDeploymentServices:
    """The software deployment services of ``ctx``.

    Raises:
        PluginError: the engine running the plugin offers none.
    """
    found = getattr(ctx, "software", None)
    if not isinstance(found, SoftwareDeploymentServices):
        raise PluginError(
            f"{ctx.resource_type}: this engine has no software deployment services "
            "(no metadata delivery backend was configured)",
            resource=ctx.resource_name,
        )
    return found


def io_entries(items: Sequence[Mapping[str, Any]] | None) -> tuple[dict[str, Any], ...]:
    """Config inputs or outputs as stored: validated maps without their unset keys."""
    return tuple({k: v for k, v in item.items() if v is not None} for item in items or ())
