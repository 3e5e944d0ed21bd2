"""The composition root: configuration in, a running engine and the orchestration service out.

:func:`build_orchestration_service` is what ``thermik-api`` and the ``thermik`` CLI call;
:func:`start_engine` is what ``thermik-engine`` runs. Both build the Store (the embedded SQLite
database is created and migrated on first use; a server database must be migrated with
``thermik-manage db sync``), load the resource plugins from their entry points, start the actor
runtime and let it resume the stacks whose operation was interrupted.

They also build the software deployment machinery: the metadata delivery backend named by
``[delivery] backend`` (builtin by default) and the
:class:`~thermik.deployments.DeploymentService` the plugins use. The builtin backend's
capability URLs (``/delivery/v1/...``) are served by the REST API when ``thermik-api`` runs
(:func:`build_api_service`), and otherwise by the engine itself, on ``[delivery] public_url``
or a free loopback port, so a local agent can reach them.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from thermik.actors.runtime import ConvergeRequest, EngineRuntime
from thermik.conf.settings import Settings
from thermik.delivery.base import DeliveryBackend
from thermik.delivery.loader import create_backend
from thermik.delivery.loopback import HttpRequest, HttpResponse
from thermik.delivery.metadata_writer import DeliveryPolicy
from thermik.delivery.resource_signals import signal_through
from thermik.delivery.shared_objects import SharedObjects
from thermik.deployments import DeploymentService
from thermik.engine.states import State
from thermik.orchestration import Orchestrator
from thermik.orchestration.clouds import StackClouds
from thermik.orchestration.nested import NestedStacks
from thermik.persistence import migration
from thermik.persistence.crypto import SecretBox
from thermik.persistence.database import Database
from thermik.persistence.factory import open_store
from thermik.persistence.store import Store
from thermik.persistence.values import NewStack, Stack, UserCreds
from thermik.resources import Registry

if TYPE_CHECKING:
    from oslo_messaging import Transport

    from thermik.clients.access import CloudAccesses
    from thermik.resources.stack_users import StackUsers
    from thermik.rpc.client import Engines
    from thermik.rpc.server import RpcServer

LOG = logging.getLogger(__name__)

#: The file under the state directory that holds the embedded default's encryption key.
KEY_FILE = "auth_encryption_key"
#: The file under the state directory that remembers where this engine served builtin URLs.
DELIVERY_URL_FILE = "delivery_url"


def is_embedded(settings: Settings) -> bool:
    """Whether the database is the embedded SQLite file (migrated automatically)."""
    return settings.database.connection.startswith("sqlite")


def encryption_key(settings: Settings) -> str | None:
    """The key secrets are stored under.

    The embedded default needs no configuration: without a configured key, one is generated
    once and kept (readable by the user only) under the state directory.
    """
    if settings.auth_encryption_key or not is_embedded(settings):
        return settings.auth_encryption_key
    path = Path(settings.state_dir) / KEY_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another process created it first; read theirs
        else:
            with os.fdopen(fd, "w", encoding="ascii") as out:
                out.write(SecretBox.generate_key())
    return path.read_text(encoding="ascii").strip()


def open_engine_store(settings: Settings) -> Store:
    """The Store; the embedded SQLite database is migrated to the current schema first."""
    key = encryption_key(settings)
    if is_embedded(settings):
        db = Database(settings.database)
        try:
            if migration.current_revision(db) != migration.head_revision():
                migration.upgrade(db)
        finally:
            db.dispose()
    return open_store(settings.database, key)


#: How the REST API serves the builtin backend's capability URLs (``/delivery/v1/...``).
DeliveryHandler = Callable[[HttpRequest], HttpResponse]
#: What is told each state a stack enters (see :class:`thermik.rpc.notifications.StackNotifier`).
StackObserver = Callable[[Stack, State, str], None]


@dataclasses.dataclass
class Engine:
    """A running engine: its Store, plugins, actor runtime and deployment delivery."""

    store: Store
    registry: Registry
    runtime: EngineRuntime
    delivery: DeliveryBackend | None = None
    deployments: DeploymentService | None = None
    cloud: CloudAccesses | None = None
    #: Service mode: the RPC client to the other engines (closed when the engine stops).
    peers: Any = None

    def stop(self) -> None:
        """Stop the runtime, then the delivery machinery and the cloud's connections; the
        database stays open."""
        try:
            self.runtime.stop()
        finally:
            if self.peers is not None:
                self.peers.close()
            if self.deployments is not None:
                self.deployments.close()
            if self.delivery is not None:
                self.delivery.close()
            if self.cloud is not None:
                self.cloud.pool.close()

    def close(self) -> None:
        """Stop everything (what it recorded stays), then release the database."""
        try:
            self.stop()
        finally:
            self.store.close()


def build_cloud(settings: Settings, store: Store) -> CloudAccesses | None:
    """The cloud access of the engine.

    Local mode's clouds.yaml cloud when ``[DEFAULT] cloud`` names one; service mode's Keystone
    trusts when the API authenticates with Keystone (``[api] auth_strategy = keystone``) and
    ``[trustee]`` names the Thermik service user; ``None`` when no cloud is configured (cloud
    resource types then fail clearly).

    Raises:
        ConfigError: service mode is configured with something it cannot work with
            (``deferred_auth_method = password``, no Keystone URL).
    """
    clients = settings.clients
    service_mode = (
        settings.api.auth_strategy == "keystone" and settings.keystone.trustee.configured
    )
    if not clients.cloud and not service_mode:
        if settings.api.auth_strategy == "keystone":
            LOG.warning(
                "[api] auth_strategy = keystone without a [trustee] service user: stacks "
                "cannot act on the cloud for their users (no trusts are made)"
            )
        return None
    # Imported here: openstacksdk takes half a second to import, which a cloud-free command
    # (the demo) should not pay.
    from thermik.clients.access import CloudAccesses  # noqa: PLC0415
    from thermik.clients.credentials import CredentialSource, LocalCloud  # noqa: PLC0415
    from thermik.clients.pool import ClientPool  # noqa: PLC0415
    from thermik.clients.trusts import KeystoneTrusts  # noqa: PLC0415

    pool = ClientPool(clients)
    source: CredentialSource
    if clients.cloud:
        source = LocalCloud(clients.cloud, clients.cloud_config_file)
    else:
        source = KeystoneTrusts(pool, settings.keystone)
    return CloudAccesses(pool, source, lambda root_id: stored_creds(store, root_id))


def build_stack_users(
    settings: Settings, cloud: CloudAccesses | None, store: Store
) -> StackUsers | None:
    """The stack domain users plugins get (servers' and wait condition handles' own Keystone
    users), when a stack user domain is configured and the engine has a cloud."""
    if cloud is None or not settings.keystone.stack_domain.configured:
        return None
    from thermik.clients.stack_users import StackDomainUsers  # noqa: PLC0415
    from thermik.resources.stack_users import StackUsers  # noqa: PLC0415

    return StackUsers(
        StackDomainUsers(cloud.pool, settings.keystone),
        root_of=lambda stack_id: store.get_stack(stack_id, show_deleted=True).root_id,
        on_project=store.set_stack_user_project,
    )


def stored_creds(store: Store, root_id: str) -> UserCreds | None:
    """What the stack tree rooted at ``root_id`` stored to act for its user, if anything."""
    root = store.get_stack(root_id, show_deleted=True)
    return None if root.user_creds_id is None else store.get_user_creds(root.user_creds_id)


def build_delivery(settings: Settings, store: Store | None = None) -> DeliveryBackend:
    """The ``[delivery] backend``, signing its URLs with the engine's encryption key; the
    builtin backend keeps its documents and signals in ``store`` (every process serves them)."""
    keyed = dataclasses.replace(settings, auth_encryption_key=encryption_key(settings))
    backend = create_backend(settings.delivery.backend, keyed)
    keep_in = getattr(backend, "keep_in", None)
    if store is not None and callable(keep_in):
        keep_in(SharedObjects(store))
    return backend


def build_deployments(
    settings: Settings,
    store: Store,
    backend: DeliveryBackend,
    policy: DeliveryPolicy | None = None,
    api_url: str | None = None,
) -> DeploymentService:
    """The software deployment services over ``backend`` (``policy``: delivery timing,
    ``[delivery] write_retries`` by default; ``api_url``: the REST API serving the engine,
    for the signal URLs of wait condition handles)."""
    delivery = settings.delivery
    return DeploymentService(
        store,
        backend,
        policy=policy or DeliveryPolicy.from_settings(delivery),
        default_config_transport=delivery.default_software_config_transport,
        default_signal_transport=delivery.default_deployment_signal_transport,
        max_signal_size=delivery.max_signal_size,
        api_url=api_url,
        agent_zaqar=agent_zaqar(settings, backend),
    )


def agent_zaqar(settings: Settings, backend: DeliveryBackend) -> DeliveryBackend | None:
    """Zaqar as the servers' stack users reach it (their catalog's ``messaging``), beside a
    configured backend that is no Zaqar, when a stack user domain gives servers such users."""
    if backend.config_transport == "ZAQAR_MESSAGE":
        return None
    if not settings.keystone.stack_domain.configured:
        return None
    from thermik.delivery.impl_zaqar import CatalogZaqarBackend  # noqa: PLC0415

    return CatalogZaqarBackend.from_settings(settings)


def served_api_url(settings: Settings) -> str:
    """The root of the REST API as servers reach it: ``[delivery] public_url``, else the
    listener's address (``thermik-api`` sets it to the port it bound)."""
    api = settings.api
    host = f"[{api.bind_host}]" if ":" in api.bind_host else api.bind_host
    return (settings.delivery.public_url or f"http://{host}:{api.bind_port}").rstrip("/")


def serve_delivery(settings: Settings, backend: DeliveryBackend) -> None:
    """Serve an engine-served backend's URLs from this process (no REST API mounts them).

    On ``[delivery] public_url`` when set. Otherwise on a loopback port that is remembered
    under the state directory and taken again by the next process when it is free, so URLs
    handed to agents by one ``thermik`` command keep working after it ended.
    """
    serve = getattr(backend, "serve_on_loopback", None)
    if not callable(serve):
        return
    if settings.delivery.public_url:
        serve(settings.delivery.public_url)
        return
    remembered = Path(settings.state_dir) / DELIVERY_URL_FILE
    url = remembered.read_text(encoding="ascii").strip() if remembered.exists() else None
    try:
        served = serve(url)
    except OSError:  # the remembered port is taken (another thermik process serves it)
        served = serve(None)
    if served != url:
        remembered.parent.mkdir(parents=True, exist_ok=True)
        remembered.write_text(str(served), encoding="ascii")


def start_engine(
    settings: Settings,
    *,
    serve_urls: bool = True,
    backend: DeliveryBackend | None = None,
    policy: DeliveryPolicy | None = None,
    stack_observer: StackObserver | None = None,
    peers: Transport | None = None,
) -> Engine:
    """Build the Store, the Registry, the delivery and the nested-stack services, start the
    runtime, attach the services to it, then resume interrupted stacks.

    ``serve_urls=False`` leaves serving the builtin backend's URLs to the REST API. Tests and
    benchmarks may hand in a ``backend`` (closed with the engine) and a delivery ``policy``.
    ``stack_observer`` is told every state a stack enters (service mode's notifications).
    ``peers`` (service mode, the engine owns it): the message bus to the other engines, which
    child stacks are started on and whose parents are told when a child ends here.
    """
    store = open_engine_store(settings)
    deployments: DeploymentService | None = None
    try:
        registry = Registry.from_entry_points()
        backend = backend or build_delivery(settings, store)
        if serve_urls:
            serve_delivery(settings, backend)
        api_url = None if serve_urls else served_api_url(settings)
        deployments = build_deployments(settings, store, backend, policy, api_url)
        cloud = build_cloud(settings, store)
        stack_users = build_stack_users(settings, cloud, store)
        nested = NestedStacks(
            store,
            registry,
            settings.limits,
            fallback_poll=settings.engine.nested_poll_interval,
            default_timeout_mins=settings.engine.default_stack_timeout,
        )
        runtime = EngineRuntime.start(
            store=store,
            registry=registry,
            settings=settings.engine,
            delivery=backend,
            software=deployments,
            nested=nested,
            cloud=cloud,
            release_credentials=None if cloud is None else cloud.source.release,
            stack_users=stack_users,
            resume=False,
            budget=settings.limits.function_budget(),
            stack_observer=stack_observer,
        )
    except BaseException:
        if deployments is not None:
            deployments.close()
        if backend is not None:
            backend.close()
        store.close()
        raise
    # The services need the runtime and the runtime needs them: attached before it resumes
    # interrupted stacks.
    deployments.attach(runtime.wake)
    signal_through(backend, runtime.signal)
    nested.attach(runtime)
    engine = Engine(store, registry, runtime, backend, deployments, cloud)
    if peers is not None:
        engine.peers = connect_peers(engine, nested, peers, settings)
    runtime.resume_incomplete()
    return engine


def connect_peers(
    engine: Engine, nested: NestedStacks, transport: Transport, settings: Settings
) -> Any:
    """Service mode: children start on any engine, parents elsewhere are told of a child's
    end (:mod:`thermik.rpc.peers`); the client to close with the engine."""
    from thermik.rpc.client import EngineClient, RoutedRuntime  # noqa: PLC0415
    from thermik.rpc.peers import ParentWaker  # noqa: PLC0415

    engines = EngineClient(transport, settings.rpc.topic, settings.rpc.call_timeout)
    nested.attach(RoutedRuntime(engines, engine.store))
    engine.runtime.attach_peers(ParentWaker(engines, engine.store, engine.runtime.engine_id))
    return engines


class EngineRuntimeView:
    """The runtime as the orchestration service uses it; stopping it stops the whole engine
    (runtime and delivery), the service then closes the database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @property
    def engine_id(self) -> str:
        """See :attr:`EngineRuntime.engine_id`."""
        return self.engine.runtime.engine_id

    def create(self, new: NewStack, request: ConvergeRequest) -> Stack:
        """See :meth:`EngineRuntime.create`."""
        return self.engine.runtime.create(new, request)

    def converge(self, request: ConvergeRequest) -> str:
        """See :meth:`EngineRuntime.converge`."""
        return self.engine.runtime.converge(request)

    def cancel(self, stack_id: str, *, rollback: bool) -> None:
        """See :meth:`EngineRuntime.cancel`."""
        self.engine.runtime.cancel(stack_id, rollback=rollback)

    def signal(self, stack_id: str, resource_name: str, data: Mapping[str, Any] | None) -> None:
        """See :meth:`EngineRuntime.signal`."""
        self.engine.runtime.signal(stack_id, resource_name, data)

    def wait(self, stack_id: str, timeout: float) -> State:
        """See :meth:`EngineRuntime.wait`."""
        return self.engine.runtime.wait(stack_id, timeout)

    def stop(self) -> None:
        """Stop the runtime and the delivery machinery."""
        self.engine.stop()


def orchestrator_for(engine: Engine, settings: Settings) -> Orchestrator:
    """The orchestration service over ``engine``; its ``close()`` stops the engine."""
    return Orchestrator(
        engine.store,
        engine.registry,
        EngineRuntimeView(engine),
        settings.limits,
        servers=engine.deployments,
        clouds=None if engine.cloud is None else request_clouds(engine.cloud),
    )


def request_clouds(cloud: CloudAccesses) -> StackClouds:
    """The cloud layer as the orchestration service uses it."""
    from thermik.clients.requests import RequestClouds  # noqa: PLC0415

    return RequestClouds(cloud)


def build_orchestration_service(settings: Settings) -> Orchestrator:
    """The orchestration service over a freshly started engine; ``close()`` stops both."""
    return orchestrator_for(start_engine(settings), settings)


def build_api_service(settings: Settings) -> tuple[Orchestrator, DeliveryHandler | None]:
    """The orchestration service for ``thermik-api``, and the handler of the builtin
    backend's capability URLs for the API to mount under ``/delivery/v1`` (None when the
    configured backend serves agents elsewhere)."""
    engine = start_engine(settings, serve_urls=False)
    handler = getattr(engine.delivery, "serve", None)
    service = orchestrator_for(engine, settings)
    return service, handler if callable(handler) else None


def serve_rpc(engine: Engine, transport: Transport, settings: Settings) -> RpcServer:
    """Service mode: serve the engine's RPC API on ``transport`` (started; stop it before
    closing the engine), on ``[rpc] topic`` and the engine's own server queue."""
    from thermik.rpc.server import EngineEndpoint, RpcServer  # noqa: PLC0415

    signalled = getattr(engine.delivery, "signalled", None)
    endpoint = EngineEndpoint(
        engine.runtime,
        engine.deployments,
        delivery=engine.delivery if callable(signalled) else None,  # type: ignore[arg-type]
        wake=engine.runtime.wake,
    )
    server = RpcServer(transport, settings.rpc.topic, engine.runtime.engine_id, endpoint)
    server.start()
    return server


def build_routed_service(
    settings: Settings, transport: Transport
) -> tuple[Orchestrator, DeliveryHandler | None]:
    """Service mode's orchestration service for ``thermik-api`` (``[api] engine = rpc``): no
    engine here; every stack operation goes over ``transport`` to the engine driving the
    stack; reads are served from the database. ``close()`` releases the transport and the
    database. With the builtin backend, also the handler of its capability URLs, served
    from the database (:mod:`thermik.rpc.routed_delivery`)."""
    from thermik.rpc.client import EngineClient, RoutedRuntime  # noqa: PLC0415
    from thermik.rpc.routed_delivery import route_delivery  # noqa: PLC0415

    engines = EngineClient(transport, settings.rpc.topic, settings.rpc.call_timeout)
    service = routed_service(settings, engines)
    try:
        backend = build_delivery(settings, service.store)
    except BaseException:
        service.close()
        raise
    handler = getattr(backend, "serve", None)
    if not callable(handler):
        return service, None
    assert isinstance(service.runtime, RoutedRuntime)
    route_delivery(backend, service.runtime, engines)
    return service, handler


def routed_service(settings: Settings, engines: Engines) -> Orchestrator:
    """The orchestration service of a process without an engine: the runtime's calls go
    to the engines through ``engines``, reads come from the database."""
    from thermik.rpc.client import RoutedDeployments, RoutedRuntime  # noqa: PLC0415

    store = open_engine_store(settings)
    try:
        cloud = build_cloud(settings, store)
        return Orchestrator(
            store,
            Registry.from_entry_points(),
            RoutedRuntime(engines, store),
            settings.limits,
            servers=RoutedDeployments(engines),
            clouds=None if cloud is None else request_clouds(cloud),
            routed=True,
        )
    except BaseException:
        store.close()
        raise
