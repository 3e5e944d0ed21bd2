"""The Store: every persistence operation the engine, API and delivery need.

Each method is one atomic statement or transaction. Methods return frozen values (never ORM
rows) and raise only :mod:`thermik.errors` classes: ``NotFound`` subclasses for missing rows,
``Conflict`` subclasses when a compare-and-swap loses, ``StoreError`` subclasses when the
database cannot be used. The interface is split by concern; :class:`Store` is all of them.
"""

from __future__ import annotations

import abc
import datetime
from collections.abc import Callable, Iterable, Mapping, Sequence

from thermik.errors import PathElement
from thermik.persistence.resource_values import (
    NO_CHANGES,
    DataWrite,
    Event,
    EventQuery,
    JoinArrival,
    NewEvent,
    NewResource,
    Resource,
    ResourceChanges,
)
from thermik.persistence.software_values import (
    DeliveryObject,
    DeploymentChanges,
    EngineRecord,
    NewSoftwareDeployment,
    Snapshot,
    SoftwareConfig,
    SoftwareDeployment,
    StackLease,
)
from thermik.persistence.values import (
    JSON,
    KEEP,
    NO_STACK_CHANGES,
    Keep,
    NewStack,
    RawTemplate,
    Stack,
    StackChanges,
    StackQuery,
    UserCreds,
)

#: Told each event appended (see :meth:`EventStore.watch_events`).
EventWatcher = Callable[[Event], None]


class TemplateStore(abc.ABC):
    """Raw templates with their files and environments."""

    @abc.abstractmethod
    def store_raw_template(
        self,
        template: Mapping[str, JSON],
        environment: Mapping[str, JSON],
        files: Mapping[str, str],
        hidden_parameters: Iterable[str] = (),
    ) -> int:
        """Store a template; values of ``hidden_parameters`` in the environment are encrypted
        (all parameter values are when a key is configured)."""

    @abc.abstractmethod
    def get_raw_template(self, template_id: int) -> RawTemplate:
        """The template, environment (decrypted) and files; ``NotFound`` if absent."""

    @abc.abstractmethod
    def delete_raw_template(self, template_id: int) -> None:
        """Delete a template no stack or resource refers to (``Conflict`` otherwise)."""


class StackStore(abc.ABC):
    """Stacks, their traversal fencing token and their listing."""

    @abc.abstractmethod
    def create_stack(self, new: NewStack) -> Stack:
        """Insert a stack, and its ``lease`` if it has one, in one transaction
        (``DuplicateName`` if the tenant has a live stack of that name)."""

    @abc.abstractmethod
    def get_stack(
        self, stack_id: str, *, tenant: str | None = None, show_deleted: bool = False
    ) -> Stack:
        """One stack; ``StackNotFound`` if absent, deleted, or of another tenant."""

    @abc.abstractmethod
    def get_stack_by_name(self, tenant: str, name: str) -> Stack:
        """The live stack called ``name`` in ``tenant``."""

    @abc.abstractmethod
    def list_stacks(self, query: StackQuery) -> list[Stack]:
        """Stacks matching ``query``, sorted and paged."""

    @abc.abstractmethod
    def count_stacks(self, query: StackQuery) -> int:
        """How many stacks match ``query`` (ignoring marker and limit)."""

    @abc.abstractmethod
    def list_stack_tree(self, root_id: str) -> list[Stack]:
        """The live stacks whose root is ``root_id``, the root included, shallowest first."""

    @abc.abstractmethod
    def swap_traversal(
        self, stack_id: str, expected: str, new: str, changes: StackChanges = NO_STACK_CHANGES
    ) -> Stack:
        """Move ``current_traversal`` from ``expected`` to ``new`` and apply ``changes``.

        Exactly one of several racing callers wins; the others get ``TraversalConflict``.
        """

    @abc.abstractmethod
    def set_stack_user_project(self, root_id: str, project_id: str) -> None:
        """Record ``project_id`` as the stack user project of every stack of the tree rooted
        at ``root_id`` (Heat's ``stack_user_project_id``); setting it again changes nothing."""

    @abc.abstractmethod
    def update_stack(self, stack_id: str, traversal: str, changes: StackChanges) -> Stack:
        """Apply ``changes`` if ``traversal`` is still current (``TraversalConflict`` if not)."""

    @abc.abstractmethod
    def soft_delete_stack(
        self, stack_id: str, traversal: str, changes: StackChanges = NO_STACK_CHANGES
    ) -> None:
        """Mark the stack deleted if ``traversal`` is still current; its name becomes free.

        ``changes`` are applied in the same statement, so a stack is never seen settled as
        DELETE_COMPLETE without its deletion time.
        """

    @abc.abstractmethod
    def purge_deleted(self, older_than: datetime.datetime) -> int:
        """Remove stacks soft-deleted before ``older_than`` with all their rows; the count."""


class ResourceStore(abc.ABC):
    """Resource versions and their row lock (``engine_id``, ``atomic_key``) as in Heat.

    Every guarded write raises ``LockConflict`` when the row is not as expected and
    ``ResourceNotFound`` when it is gone.
    """

    @abc.abstractmethod
    def create_resource(self, new: NewResource) -> Resource:
        """Insert a resource version."""

    @abc.abstractmethod
    def create_resources(self, news: Sequence[NewResource]) -> list[Resource]:
        """Insert several resource versions in one transaction (all or none), in order.

        A traversal inserts the INIT versions of every new resource this way: one commit for a
        whole stack instead of one per resource.
        """

    @abc.abstractmethod
    def replace_resource(self, old_id: int, atomic_key: int, new: NewResource) -> Resource:
        """Insert a replacement of an unlocked ``old_id`` and link both, or ``LockConflict``."""

    @abc.abstractmethod
    def get_resource(self, resource_id: int) -> Resource:
        """One resource version; ``ResourceNotFound`` if absent."""

    @abc.abstractmethod
    def list_resources(self, stack_id: str) -> list[Resource]:
        """Every version of every resource of a stack, oldest first."""

    @abc.abstractmethod
    def list_resources_by_root(self, root_stack_id: str) -> list[Resource]:
        """Every resource version of a stack tree."""

    @abc.abstractmethod
    def find_resources_by_physical_id(self, physical_resource_id: str) -> list[Resource]:
        """Resource versions with that physical id."""

    @abc.abstractmethod
    def find_resources_by_name(self, stack_id: str, name: str) -> list[Resource]:
        """The versions of one resource of a stack, oldest first."""

    @abc.abstractmethod
    def lock_resource(
        self,
        resource_id: int,
        engine_id: str,
        atomic_key: int,
        changes: ResourceChanges = NO_CHANGES,
        *,
        event: NewEvent | None = None,
        properties: Mapping[str, JSON] | None = None,
        attributes: Mapping[str, JSON] | None = None,
    ) -> int:
        """Take the row lock of an unlocked row at ``atomic_key``; the new atomic key.

        Like every guarded write, it also stores ``properties`` and ``attributes`` when given
        (as :meth:`ResourceDataStore.store_resource_properties` and
        :meth:`ResourceDataStore.store_resource_attributes` do) in the same transaction: the
        engine's hot path commits a resource's state, its event and its data together.
        """

    @abc.abstractmethod
    def unlock_resource(
        self,
        resource_id: int,
        engine_id: str,
        atomic_key: int,
        changes: ResourceChanges = NO_CHANGES,
        *,
        event: NewEvent | None = None,
        properties: Mapping[str, JSON] | None = None,
        attributes: Mapping[str, JSON] | None = None,
        arrival: JoinArrival | None = None,
    ) -> int:
        """Release the lock ``engine_id`` holds at ``atomic_key`` (also: steal from the dead).

        ``arrival``, when given, is appended for the row's stack in the same transaction (a
        node's result recorded with the state that ends it)."""

    @abc.abstractmethod
    def update_resource(
        self,
        resource_id: int,
        atomic_key: int,
        changes: ResourceChanges,
        *,
        engine_id: str | None = None,
        event: NewEvent | None = None,
        properties: Mapping[str, JSON] | None = None,
        attributes: Mapping[str, JSON] | None = None,
        arrival: JoinArrival | None = None,
    ) -> int:
        """Change a row at ``atomic_key``: held by ``engine_id``, or unlocked when ``None``.

        Like the lock and unlock, it appends ``event`` (and ``arrival``, for the row's stack)
        in the same transaction, so a state change and the event reporting it are stored
        together or not at all.
        """

    @abc.abstractmethod
    def record_action(
        self,
        resource_id: int,
        atomic_key: int,
        changes: ResourceChanges,
        *,
        events: Sequence[NewEvent],
        data: Sequence[DataWrite] = (),
        properties: Mapping[str, JSON] | None = None,
        attributes: Mapping[str, JSON] | None = None,
        arrival: JoinArrival | None = None,
    ) -> int:
        """Record a whole action of a row that is unlocked at ``atomic_key`` in one
        transaction, the new atomic key (``LockConflict`` if the row moved on or is locked).

        The action already ran, before anything of it was stored: a store-only plugin's (see
        ``ResourcePlugin.store_only``). The row's ``changes``, the ``events`` in order (the
        action's start and its end), the resource ``data`` it wrote (as
        :meth:`ResourceDataStore.set_resource_data` and ``delete_resource_data`` do), the
        ``properties``, ``attributes`` and ``arrival`` (as :meth:`unlock_resource`) are stored
        together or not at all; the row stays unlocked.

        Such an action changed nothing outside the store, so the record may be committed
        lazily (SQLite: within milliseconds, and before any later write or read of this
        process): a crash can lose the last records, each with everything recorded after it,
        which leaves those resources as they were for the resumed traversal to converge again.
        """

    @abc.abstractmethod
    def delete_resource(self, resource_id: int) -> None:
        """Delete a resource version and its data (no error if already gone)."""

    @abc.abstractmethod
    def delete_deleted_resources(self, stack_id: str) -> int:
        """Delete the stack's versions in ``DELETE_COMPLETE`` and their data, in one write (a
        completed traversal's purge); how many went."""

    @abc.abstractmethod
    def set_resource_metadata(
        self, resource_id: int, metadata: Mapping[str, JSON], expected_generation: int
    ) -> int:
        """Replace the resource's metadata if its generation is unchanged; the new generation."""


class ResourceDataStore(abc.ABC):
    """A resource's private data, stored properties and cached attributes.

    Properties and attributes, like every document holding values computed from a template
    (event properties, join payloads, software configs, deployment input and output values),
    are stored sealed whenever a key is configured (see :mod:`thermik.persistence.crypto`).
    """

    @abc.abstractmethod
    def set_resource_data(
        self, resource_id: int, key: str, value: str, *, redact: bool = False
    ) -> None:
        """Set one key; ``redact`` marks a secret (stored encrypted, refused without a key;
        other keys are sealed when a key is configured)."""

    @abc.abstractmethod
    def get_resource_data(self, resource_id: int) -> dict[str, str]:
        """All keys of a resource, decrypted."""

    @abc.abstractmethod
    def redacted_resource_data_keys(self, resource_id: int) -> frozenset[str]:
        """The keys of a resource stored encrypted (set with ``redact``)."""

    @abc.abstractmethod
    def delete_resource_data(self, resource_id: int, key: str) -> None:
        """Delete one key (no error if absent)."""

    @abc.abstractmethod
    def require_encryption(self, *path: PathElement) -> None:
        """Refuse the secret at ``path`` (``SecretKeyError``) if this store would keep it in
        clear: no key is configured."""

    @abc.abstractmethod
    def store_resource_properties(
        self, resource_id: int, properties: Mapping[str, JSON], *, encrypt: bool = False
    ) -> None:
        """Store the resolved properties of a resource version (its atomic key moves on, as
        with every write of its blobs); ``encrypt``: refuse them without a key."""

    @abc.abstractmethod
    def get_resource_properties(self, resource_id: int) -> Mapping[str, JSON] | None:
        """The stored properties, or ``None`` when never stored."""

    @abc.abstractmethod
    def list_resource_properties(self, stack_id: str) -> dict[int, Mapping[str, JSON]]:
        """The stored properties of every version of a stack that has some, by version id.

        One query for a whole stack: a traversal reads them all at its start.
        """

    @abc.abstractmethod
    def store_resource_attributes(
        self, resource_id: int, attributes: Mapping[str, JSON] | None
    ) -> None:
        """Cache resolved attribute values (``None`` clears the cache); the row's atomic key
        moves on."""

    @abc.abstractmethod
    def get_resource_attributes(self, resource_id: int) -> Mapping[str, JSON] | None:
        """The cached attribute values, or ``None``."""


class EventStore(abc.ABC):
    """Stack and resource events, and the convergence join log."""

    @abc.abstractmethod
    def watch_events(self, watcher: EventWatcher | None) -> None:
        """Tell ``watcher`` every event appended from now on, once its write returned (on
        the writer's thread: it must return at once); ``None`` stops telling."""

    @abc.abstractmethod
    def append_event(self, new: NewEvent) -> Event:
        """Append an event."""

    @abc.abstractmethod
    def list_events(self, query: EventQuery) -> list[Event]:
        """Events of a stack after ``query.marker``, at most ``query.limit``."""

    @abc.abstractmethod
    def prune_events(self, stack_id: str, keep: int) -> int:
        """Delete all but the newest ``keep`` events of a stack; how many were deleted."""

    @abc.abstractmethod
    def append_arrival(self, stack_id: str, arrival: JoinArrival) -> None:
        """Record one arrival at a join: one inserted row, whatever the join's size."""

    @abc.abstractmethod
    def append_arrivals(self, stack_id: str, arrivals: Sequence[JoinArrival]) -> None:
        """Record several arrivals in one transaction (all or none), in order."""

    @abc.abstractmethod
    def list_arrivals(self, traversal_id: str, node: str) -> list[JoinArrival]:
        """The arrivals at ``node`` in a traversal, in arrival order."""

    @abc.abstractmethod
    def list_traversal_arrivals(self, traversal_id: str) -> list[JoinArrival]:
        """Every arrival of a traversal in order (to rebuild a stack's join state)."""

    @abc.abstractmethod
    def delete_arrivals(self, stack_id: str, *, except_traversal: str | None = None) -> int:
        """Drop the join logs of a stack's traversals other than ``except_traversal``."""


class SoftwareStore(abc.ABC):
    """Software configs and deployments, and each server's metadata generation."""

    @abc.abstractmethod
    def create_software_config(
        self,
        name: str,
        group: str,
        config: Mapping[str, JSON],
        tenant: str,
        *,
        config_id: str | None = None,
    ) -> SoftwareConfig:
        """Store an (immutable) software config."""

    @abc.abstractmethod
    def get_software_config(self, config_id: str, *, tenant: str | None = None) -> SoftwareConfig:
        """One software config; ``NotFound`` if absent or of another tenant."""

    @abc.abstractmethod
    def list_software_configs(
        self, tenant: str | None, *, marker: str | None = None, limit: int | None = None
    ) -> list[SoftwareConfig]:
        """Software configs, oldest first, paged by id ``marker``."""

    @abc.abstractmethod
    def delete_software_config(self, config_id: str, *, tenant: str | None = None) -> None:
        """Delete a config (``Conflict`` while a deployment uses it)."""

    @abc.abstractmethod
    def create_software_deployment(self, new: NewSoftwareDeployment) -> SoftwareDeployment:
        """Store a deployment."""

    @abc.abstractmethod
    def get_software_deployment(
        self, deployment_id: str, *, tenant: str | None = None
    ) -> SoftwareDeployment:
        """One deployment; ``NotFound`` if absent or of another tenant."""

    @abc.abstractmethod
    def list_software_deployments(
        self, *, tenant: str | None = None, server_id: str | None = None
    ) -> list[SoftwareDeployment]:
        """Deployments by tenant and/or server, oldest first."""

    @abc.abstractmethod
    def update_software_deployment(
        self, deployment_id: str, changes: DeploymentChanges
    ) -> SoftwareDeployment:
        """Apply ``changes`` to a deployment."""

    @abc.abstractmethod
    def delete_software_deployment(self, deployment_id: str) -> None:
        """Delete a deployment (no error if already gone)."""

    @abc.abstractmethod
    def get_metadata_generation(self, server_id: str) -> int:
        """The metadata generation of a server (0 before the first bump)."""

    @abc.abstractmethod
    def bump_metadata_generation(self, server_id: str, expected: int) -> int:
        """Move the generation from ``expected`` to ``expected + 1`` or ``GenerationConflict``."""

    @abc.abstractmethod
    def put_delivery_object(self, key: str, body: bytes) -> int:
        """Store the builtin delivery's document or signal ``body`` at the URL path ``key``
        (encrypted when a key is configured); the write's generation, which grows with every
        write of that key (1 for its first)."""

    @abc.abstractmethod
    def get_delivery_object(self, key: str) -> DeliveryObject | None:
        """The body stored at ``key`` and its generation, or ``None``."""

    @abc.abstractmethod
    def delete_delivery_object(self, key: str) -> None:
        """Remove what is stored at ``key`` (no error if nothing is)."""


class SnapshotStore(abc.ABC):
    """Snapshots and stored user credentials."""

    @abc.abstractmethod
    def create_snapshot(
        self,
        stack_id: str,
        tenant: str,
        name: str | None,
        *,
        snapshot_id: str | None = None,
    ) -> Snapshot:
        """Create a snapshot row in CREATE_IN_PROGRESS."""

    @abc.abstractmethod
    def get_snapshot(self, snapshot_id: str, *, tenant: str | None = None) -> Snapshot:
        """One snapshot; ``NotFound`` if absent."""

    @abc.abstractmethod
    def list_snapshots(self, stack_id: str) -> list[Snapshot]:
        """A stack's snapshots, oldest first."""

    @abc.abstractmethod
    def update_snapshot(
        self,
        snapshot_id: str,
        *,
        status: str | Keep = KEEP,
        status_reason: str | Keep = KEEP,
        data: Mapping[str, JSON] | Keep | None = KEEP,
        secrets: Iterable[Sequence[str]] = (),
    ) -> Snapshot:
        """Record a snapshot's progress and data.

        ``secrets`` are paths of keys into ``data`` whose values are stored encrypted; the
        snapshot read back has them decrypted and lists them in ``Snapshot.secrets``.
        """

    @abc.abstractmethod
    def delete_snapshot(self, snapshot_id: str) -> None:
        """Delete a snapshot (no error if already gone)."""

    @abc.abstractmethod
    def store_user_creds(self, creds: UserCreds) -> int:
        """Store credentials (``creds.id`` is ignored); password and trust id are encrypted."""

    @abc.abstractmethod
    def get_user_creds(self, creds_id: int) -> UserCreds:
        """Stored credentials, decrypted."""

    @abc.abstractmethod
    def delete_user_creds(self, creds_id: int) -> None:
        """Delete credentials (no error if already gone)."""


class EngineStore(abc.ABC):
    """The engine registry (heartbeats) and stack leases."""

    @abc.abstractmethod
    def register_engine(
        self, engine_id: str, host: str, binary: str, topic: str, report_interval: int
    ) -> EngineRecord:
        """Register (or re-register) an engine; counts as a heartbeat."""

    @abc.abstractmethod
    def heartbeat(self, engine_id: str) -> None:
        """Record that the engine is alive (``NotFound`` if it was deregistered)."""

    @abc.abstractmethod
    def list_engines(self) -> list[EngineRecord]:
        """Registered engines with their last heartbeat."""

    @abc.abstractmethod
    def deregister_engine(self, engine_id: str) -> None:
        """Remove an engine from the registry."""

    @abc.abstractmethod
    def acquire_lease(self, stack_id: str, engine_id: str, seconds: float) -> StackLease:
        """Take a free lease (or renew one's own); ``LeaseConflict`` if another engine has it."""

    @abc.abstractmethod
    def renew_lease(self, stack_id: str, engine_id: str, seconds: float) -> StackLease:
        """Extend one's own lease; ``LeaseConflict`` if it was lost."""

    @abc.abstractmethod
    def release_lease(self, stack_id: str, engine_id: str) -> None:
        """Give up one's own lease (no error if not held)."""

    @abc.abstractmethod
    def take_over_lease(self, stack_id: str, engine_id: str, seconds: float) -> StackLease:
        """Take an expired lease from its holder; one of several racing engines wins."""

    @abc.abstractmethod
    def get_lease(self, stack_id: str) -> StackLease | None:
        """The stack's lease, expired or not, or ``None``."""

    @abc.abstractmethod
    def list_expired_leases(self) -> list[StackLease]:
        """Leases past their expiry (stacks whose engine stopped renewing)."""


class Store(
    TemplateStore,
    StackStore,
    ResourceStore,
    ResourceDataStore,
    EventStore,
    SoftwareStore,
    SnapshotStore,
    EngineStore,
):
    """Everything Thermik persists."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release every connection."""
