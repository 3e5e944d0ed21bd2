"""The engine's software deployment services (the plugins' ``ctx.software``).

:class:`DeploymentService` implements
:class:`~thermik.resources.software_services.SoftwareDeploymentServices` over the Store, one
delivery backend and the per-server metadata writers:

- configs are immutable Store rows; every deployment action stores a new *derived* config and
  points its deployment row at it (Heat's lifecycle), then tells the server's writer;
- servers with POLL_SERVER_HEAT and a stack user are served by the REST API from the database
  (:mod:`thermik.delivery.api_polled`, beside the configured backend); their deployments'
  HEAT_SIGNAL inputs carry the server's agent credentials;
- servers whose agent logs in to Keystone may ask for ZAQAR_MESSAGE, and their deployments for
  ZAQAR_SIGNAL, whatever the configured backend: ``agent_zaqar`` (the catalog's Zaqar, reached
  as the agent) serves them beside it;
- signals arrive three ways and are judged the same way (:mod:`thermik.deployments.signals`):
  pushed by the builtin backend the moment the agent PUTs them (the resource is then woken),
  collected from the backend when the resource polls (Swift objects, Zaqar queues), or sent to
  the resource through the REST API (HEAT_SIGNAL);
- a server whose metadata cannot be delivered fails the deployments still waiting for it, with
  the writer's reason, and gets an event (and another when delivery recovers).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import datetime
import logging
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from thermik.delivery.api_polled import ApiPolledBackend
from thermik.delivery.base import DeliveryBackend, DeploymentRef, ServerRef, SignalEndpoint
from thermik.delivery.document import DeploymentFacts, derive_config
from thermik.delivery.messages import DeliveryReport, MetadataDelivered
from thermik.delivery.metadata_writer import DeliveryPolicy
from thermik.delivery.routing import RoutedBackend
from thermik.deployments import configs, events, transports
from thermik.deployments.signals import SignalJudge, SignalRoutes
from thermik.deployments.source import ServerEndpoints, ServerRecord, StoreMetadataSource
from thermik.deployments.writers import DeliveryTracker, MetadataWriters
from thermik.errors import Conflict, DeliveryError, NotFound, PluginError
from thermik.persistence.software_values import (
    DeploymentChanges,
    NewSoftwareDeployment,
    SoftwareDeployment,
)
from thermik.persistence.store import Store
from thermik.resources.agent_config import occ_section
from thermik.resources.software_services import (
    IN_PROGRESS,
    ActionRequest,
    ConfigData,
    DeploymentHandle,
    DeploymentState,
    ServerEndpoint,
)

LOG = logging.getLogger(__name__)

#: Wakes the resource ``(stack_id, resource_name)`` so it looks at its deployment now.
Waker = Callable[[str, str], None]
#: Heat's status reasons of a deployment action that waits for a signal, and one that does not.
WAITING, NOT_WAITING = "Deploy data available", "Not waiting for outputs signal"


def state_of(row: SoftwareDeployment, handle: DeploymentHandle) -> DeploymentState:
    """A stored deployment as the plugins see it."""
    return DeploymentState(
        handle, row.action, row.status, row.status_reason, dict(row.output_values)
    )


class DeploymentService:
    """Software configs, server endpoints and deployments of one engine process."""

    def __init__(  # noqa: PLR0913 - keyword-only past the backend, one per delivery option
        self,
        store: Store,
        backend: DeliveryBackend,
        *,
        policy: DeliveryPolicy | None = None,
        default_config_transport: str = "POLL_TEMP_URL",
        default_signal_transport: str = "TEMP_URL_SIGNAL",
        max_signal_size: int = 1048576,
        writer_threads: int = 8,
        api_url: str | None = None,
        agent_zaqar: DeliveryBackend | None = None,
    ) -> None:
        self.store = store
        self.backend = backend
        #: Zaqar as the agents reach it, when the configured backend is no Zaqar (see above).
        self._agent_zaqar = agent_zaqar
        #: The root of the REST API serving this engine (see :attr:`api_url`).
        self._api_url = api_url
        #: Every endpoint goes to the backend that made it (the API-polled ones too).
        extra = () if agent_zaqar is None else (agent_zaqar,)
        self.routed = RoutedBackend(backend, (ApiPolledBackend(), *extra))
        self._defaults = (default_config_transport, default_signal_transport)
        self.endpoints = ServerEndpoints(store)
        self.source = StoreMetadataSource(store, self.endpoints)
        self.tracker = DeliveryTracker()
        self.judge = SignalJudge(store, max_signal_size)
        self.routes = SignalRoutes()
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=writer_threads, thread_name_prefix="thermik-delivery"
        )
        self.writers = MetadataWriters(
            backend=self.routed,
            generations=store,
            endpoints=self.endpoints,
            source=self.source,
            executor=self._executor,
            policy=policy or DeliveryPolicy(),
            on_report=self._reported,
        )
        self._waker: Waker | None = None
        self._published: set[str] = set()
        self._lock = threading.Lock()
        listen = getattr(backend, "add_signal_listener", None)
        if callable(listen):
            listen(self._pushed)

    @property
    def api_url(self) -> str | None:
        """The root of the Heat v1 API serving this engine, as servers reach it (None: the
        engine runs without its REST API)."""
        return self._api_url

    def handle_signal_url(self, stack_id: str, resource_name: str) -> str | None:
        """The backend's capability URL of a wait condition handle, if it serves one."""
        url_of = getattr(self.backend, "handle_signal_url", None)
        return str(url_of(stack_id, resource_name)) if callable(url_of) else None

    def attach(self, waker: Waker) -> None:
        """Wake resources through ``waker`` when their signal is pushed to the engine."""
        self._waker = waker

    # -- URLs that signal resources (SignalUrls) --------------------------------------------

    def resource_signal_url(self, stack_id: str, resource_name: str) -> str | None:
        """See :meth:`~thermik.resources.signal_urls.SignalUrls.resource_signal_url`."""
        urls = getattr(self.backend, "resource_signals", None)
        return None if urls is None else str(urls.url(stack_id, resource_name))

    def public_url(self, path: str) -> str | None:
        """See :meth:`~thermik.resources.signal_urls.SignalUrls.public_url`."""
        root = self._api_url
        if root is None:
            urls = getattr(self.backend, "resource_signals", None)
            root = None if urls is None else str(urls.base_url())
        return None if root is None else root.rstrip("/") + path

    # -- configs ------------------------------------------------------------------------------

    def create_config(self, tenant: str, config: ConfigData) -> str:
        row = self.store.create_software_config(
            config.name, config.group, configs.body_of(config), tenant
        )
        return row.id

    def get_config(self, config_id: str, tenant: str) -> ConfigData:
        return configs.data_of(self.store.get_software_config(config_id, tenant=tenant))

    def delete_config(self, config_id: str) -> None:
        with contextlib.suppress(NotFound):
            self.store.delete_software_config(config_id)

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
        record = self._provision(server_id, transport, metadata, credentials, default_collectors)
        self.endpoints.remember(server_id, record)
        self._publish(server_id)
        return ServerEndpoint(record.to_dict(), _agent_config(record))

    def reserve_server(
        self,
        name: str,
        transport: str,
        metadata: Mapping[str, Any],
        *,
        credentials: Mapping[str, str] | None = None,
        default_collectors: Sequence[str] = (),
    ) -> ServerEndpoint:
        record = self._provision(name, transport, metadata, credentials, default_collectors)
        return ServerEndpoint(record.to_dict(), _agent_config(record))

    def bind_server(self, server_id: str, record: Mapping[str, Any]) -> ServerEndpoint:
        found = ServerRecord.from_dict(record).bound_to(server_id)
        self.endpoints.remember(server_id, found)
        self._publish(server_id)
        return ServerEndpoint(found.to_dict(), _agent_config(found))

    def revoke_endpoint(self, record: Mapping[str, Any]) -> None:
        endpoint = ServerRecord.from_dict(record).endpoint
        try:
            self.routed.revoke(endpoint)
        except DeliveryError as error:
            LOG.warning("metadata endpoint %s not revoked: %s", endpoint.server_id, error)

    def _provision(
        self,
        name: str,
        transport: str,
        metadata: Mapping[str, Any],
        credentials: Mapping[str, str] | None,
        default_collectors: Sequence[str],
    ) -> ServerRecord:
        default = self._defaults[0]
        server = ServerRef(name, dict(credentials or {}))
        if transports.polls_api(transport, server.credentials):
            endpoint = self.routed.named(ApiPolledBackend.name).provision(server)
            return ServerRecord(endpoint, dict(metadata), tuple(default_collectors))
        if self._agent_zaqar is not None and self._zaqar_as_agent(transport, server.credentials):
            endpoint = self._agent_zaqar.provision(server)
            return ServerRecord(endpoint, dict(metadata), tuple(default_collectors))
        transports.config_transport(
            transport, default, self.backend.config_transport, self.backend.name
        )
        endpoint = self.backend.provision(server)
        return ServerRecord(endpoint, dict(metadata), tuple(default_collectors))

    def _zaqar_as_agent(self, requested: str, agent_settings: Mapping[str, Any]) -> bool:
        offered = self.backend.signal_transport
        if requested == transports.ZAQAR_MESSAGE:
            offered = self.backend.config_transport
        catalog = self._agent_zaqar is not None
        return transports.zaqar_as_agent(requested, offered, agent_settings, catalog)

    def server_agent_config(self, server_id: str) -> Mapping[str, Any] | None:
        record = self.endpoints.get(server_id)
        if record is None:
            return None
        # The stored URL may be close to expiry: the attribute hands out a fresh one.
        endpoint = self.routed.refreshed(record.endpoint)
        return _agent_config(dataclasses.replace(record, endpoint=endpoint))

    def release_server(self, server_id: str) -> None:
        record = self.endpoints.get(server_id)
        self.writers.stop(server_id)
        self.endpoints.forget(server_id)
        if record is not None:
            try:
                self.routed.revoke(record.endpoint)
            except DeliveryError as error:
                LOG.warning("metadata endpoint of server %s not revoked: %s", server_id, error)

    # -- deployments --------------------------------------------------------------------------

    def start_action(
        self, request: ActionRequest, previous: DeploymentHandle | None
    ) -> DeploymentState:
        if self.endpoints.get(request.server_id) is None:
            raise PluginError(
                f"server {request.server_id} has no metadata endpoint here: deployments go to "
                "an OS::Heat::DeployedServer, or an OS::Nova::Server with user_data_format "
                "SOFTWARE_CONFIG, of this engine",
                resource=request.owner,
            )
        agent = self._agent_settings(request.server_id)
        if self._zaqar_as_agent(request.signal_transport, agent):
            transport = transports.ZAQAR_SIGNAL
        else:
            transport = transports.signal_transport(
                request.signal_transport,
                self._defaults[1],
                self.backend.signal_transport,
                self.backend.name,
            )
        config_id = str(uuid.uuid4())
        signal = self._signal_endpoint(request, config_id, transport)
        self._store_derived(request, config_id, transport, signal)
        status = "COMPLETE" if transport == "NO_SIGNAL" else IN_PROGRESS
        row = self._save_deployment(request, config_id, status, previous)
        handle = DeploymentHandle(
            request.deployment_id,
            request.server_id,
            config_id,
            None if signal is None else signal.to_dict(),
        )
        if signal is not None:
            self.routes.add(signal, handle, request.stack_id, request.owner)
        mark = self.store.get_metadata_generation(request.server_id)
        self.tracker.expect(request.deployment_id, request.server_id, mark)
        self._publish(request.server_id)
        return state_of(row, handle)

    def _signal_endpoint(
        self, request: ActionRequest, config_id: str, transport: str
    ) -> SignalEndpoint | None:
        if transport in transports.BACKENDLESS_SIGNALS:
            return None
        agent = self._agent_settings(request.server_id)
        ref = DeploymentRef(request.deployment_id, request.server_id, config_id, agent)
        if self._agent_zaqar is not None and self._zaqar_as_agent(transport, agent):
            return self._agent_zaqar.provision_signal(ref)
        return self.backend.provision_signal(ref)

    def _agent_settings(self, server_id: str) -> dict[str, str]:
        """The Keystone credentials of the server's agent (its collector's settings), if any:
        a signal queue of the agent's own project is posted to with them."""
        record = self.endpoints.get(server_id)
        settings = {} if record is None else record.endpoint.collector_settings
        keys = ("auth_url", "user_id", "password", "project_id", "region_name")
        return {key: str(settings[key]) for key in keys if settings.get(key)}

    def _store_derived(
        self,
        request: ActionRequest,
        config_id: str,
        transport: str,
        signal: SignalEndpoint | None,
    ) -> None:
        source = None
        if request.config_id:
            source = self.get_config(request.config_id, request.tenant)
        facts = DeploymentFacts(
            server_id=request.server_id,
            action=request.action,
            stack_path=f"{request.stack_name}/{request.stack_id}",
            resource_name=request.resource_name,
            signal_transport=transport,
            physical_name=request.physical_name,
            name=request.name,
            input_values=request.input_values,
            signal_inputs=self._signal_inputs(request.server_id, transport, signal),
        )
        derived = derive_config(
            configs.source_of(source),
            facts,
            config_id=config_id,
            created_at=datetime.datetime.now(datetime.UTC),
            input_key=request.input_key,
            strict=request.strict,
        )
        self.store.create_software_config(
            derived.name,
            derived.group,
            configs.derived_body(derived),
            request.tenant,
            config_id=config_id,
        )

    def _signal_inputs(
        self, server_id: str, transport: str, signal: SignalEndpoint | None
    ) -> Mapping[str, str]:
        """What tells heat-config-notify how to signal: the signal endpoint's inputs, or for
        HEAT_SIGNAL the server's agent credentials (its stack user may signal the deployments
        to its server), when it has any."""
        if signal is not None:
            return signal.inputs
        if transport != transports.HEAT_SIGNAL:
            return {}
        record = self.endpoints.get(server_id)
        settings = {} if record is None else record.endpoint.collector_settings
        return transports.heat_signal_inputs(settings)

    def _save_deployment(
        self,
        request: ActionRequest,
        config_id: str,
        status: str,
        previous: DeploymentHandle | None,
    ) -> SoftwareDeployment:
        reason = WAITING if status == IN_PROGRESS else NOT_WAITING
        if previous is not None:
            try:
                row = self.store.update_software_deployment(
                    request.deployment_id,
                    DeploymentChanges(
                        config_id=config_id,
                        input_values=dict(request.input_values),
                        action=request.action,
                        status=status,
                        status_reason=reason,
                    ),
                )
            except NotFound:
                pass
            else:
                self._drop_action(previous)
                return row
        return self.store.create_software_deployment(
            NewSoftwareDeployment(
                config_id=config_id,
                server_id=request.server_id,
                tenant=request.tenant,
                input_values=dict(request.input_values),
                action=request.action,
                status=status,
                status_reason=reason,
                id=request.deployment_id,
            )
        )

    def _drop_action(self, handle: DeploymentHandle) -> None:
        """Forget a superseded action: its derived config and signal endpoint."""
        with contextlib.suppress(NotFound, Conflict):
            self.store.delete_software_config(handle.config_id)
        if handle.signal is not None:
            endpoint = SignalEndpoint.from_dict(handle.signal)
            self.routes.drop(endpoint)
            try:
                self.routed.revoke(endpoint)
            except DeliveryError as error:
                LOG.warning("signal endpoint of %s not revoked: %s", handle.deployment_id, error)

    def refresh(self, handle: DeploymentHandle) -> DeploymentState:
        row = self._row(handle)
        if row.status == IN_PROGRESS:
            self._republish_once(handle.server_id)
            if handle.signal is not None:
                self._collect(handle)
            failure = self.tracker.failure_for(handle.deployment_id)
            if failure is not None:
                self.judge.fail(handle.deployment_id, failure)
            row = self._row(handle)
        return state_of(row, handle)

    def _row(self, handle: DeploymentHandle) -> SoftwareDeployment:
        try:
            return self.store.get_software_deployment(handle.deployment_id)
        except NotFound:
            raise PluginError(f"deployment {handle.deployment_id} no longer exists") from None

    def _collect(self, handle: DeploymentHandle) -> None:
        assert handle.signal is not None
        try:
            payloads = self.routed.collect_signals(SignalEndpoint.from_dict(handle.signal))
        except DeliveryError as error:
            LOG.warning("signals of deployment %s not collected: %s", handle.deployment_id, error)
            return
        for payload in payloads:
            self.judge.apply_quietly(handle.deployment_id, payload)

    def _republish_once(self, server_id: str) -> None:
        # A restarted engine (or another one) may drive a deployment whose document this
        # process never wrote; the builtin backend keeps documents in memory only.
        with self._lock:
            if server_id in self._published:
                return
        self._publish(server_id)

    def _publish(self, server_id: str) -> None:
        with self._lock:
            self._published.add(server_id)
        self.writers.changed(server_id)

    def signal(self, handle: DeploymentHandle, data: Mapping[str, Any] | None) -> str:
        return self.judge.apply(handle.deployment_id, data)

    def cancel(self, handle: DeploymentHandle) -> None:
        self.judge.fail(handle.deployment_id, "Deployment cancelled.")

    def get_deployment(self, handle: DeploymentHandle) -> DeploymentState | None:
        try:
            return state_of(self.store.get_software_deployment(handle.deployment_id), handle)
        except NotFound:
            return None

    def remove(self, handle: DeploymentHandle) -> None:
        self.store.delete_software_deployment(handle.deployment_id)
        self._drop_action(handle)
        self.tracker.forget(handle.deployment_id)
        if self.endpoints.get(handle.server_id) is not None:
            self._publish(handle.server_id)

    def deployments_changed(self, server_id: str, tenant: str) -> None:
        """Deployments of ``tenant`` for the server were created, re-pointed or deleted
        through the REST API: deliver the server's document again, as Heat pushes it.

        Nothing happens for a server that is no DeployedServer of this engine's database, or
        that belongs to another tenant (whose document does not list these deployments).
        """
        if self.endpoints.get(server_id) is None:
            return
        owner = self.source.tenant_of(server_id)
        if owner is not None and owner != tenant:
            return
        with contextlib.suppress(NotFound):  # the server was released meanwhile
            self._publish(server_id)

    # -- reports and pushed signals -----------------------------------------------------------

    def _reported(self, report: DeliveryReport) -> None:
        self.tracker.report(report)
        if not isinstance(report, MetadataDelivered) or report.recovered:
            # Events are database writes: off the reporting actor's thread.
            self._executor.submit(events.record_delivery, self.store, report)

    def _pushed(self, endpoint: SignalEndpoint) -> None:
        route = self.routes.find(endpoint)
        if route is None:
            return
        try:
            payloads = self.routed.collect_signals(route.endpoint)
        except DeliveryError as error:
            LOG.warning("pushed signal of %s not read: %s", route.handle.deployment_id, error)
            return
        for payload in payloads:
            self.judge.apply_quietly(route.handle.deployment_id, payload)
        waker = self._waker
        if waker is not None:
            waker(route.stack_id, route.owner)

    def close(self) -> None:
        """Stop the writers and their executor (the backend is closed by its owner)."""
        self.writers.close()
        self._executor.shutdown(wait=False, cancel_futures=True)


def _agent_config(record: ServerRecord) -> dict[str, Any]:
    return occ_section(
        record.endpoint.collector,
        record.endpoint.collector_settings,
        default_collectors=record.default_collectors,
    )
