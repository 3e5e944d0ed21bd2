"""What every actor of one engine shares: the store, plugins, settings, threads and tables.

The runtime builds one :class:`Services` and hands it to every actor it starts; actors find
each other through its tables (never through pykka's global registry).
"""

from __future__ import annotations

import dataclasses
import datetime
import random
from collections.abc import Callable

from thermik.actors.retention import Retention
from thermik.actors.table import ActorTable
from thermik.actors.template_types import PlainTemplates
from thermik.actors.threads import JobThreads
from thermik.actors.timers import TimerService
from thermik.conf.settings import EngineSettings
from thermik.engine.states import State
from thermik.persistence.store import Store
from thermik.persistence.values import Stack, UserCreds
from thermik.resources.cloud_access import CloudAccess, CloudAccessProvider
from thermik.resources.nested_services import NestedStackServices
from thermik.resources.registry import Registry
from thermik.resources.software_services import SoftwareDeploymentServices
from thermik.resources.stack_users import StackUsers
from thermik.template.budget import Budget

#: An engine whose heartbeat is older than this many intervals is presumed dead.
MISSED_HEARTBEATS = 3


@dataclasses.dataclass(eq=False)
class Services:
    """The engine's shared machinery.

    Attributes:
        store: every persistent fact.
        registry: the resource plugins.
        settings: engine tuning.
        engine_id: this engine's id (row locks, leases).
        timers: delayed messages.
        executor: plugin calls.
        threads: actor loops (see :class:`~thermik.actors.table.PooledActor`).
        stacks: live stack actors by stack id.
        resources: live resource actors by version id.
        seed: seeds every resource's random source when set (tests).
        settled: told the id of a stack whose actor retired (its traversal is over).
        software: the software deployment services plugins get as ``ctx.software``.
        nested: the nested-stack services plugins get as ``ctx.nested``.
        cloud: the cloud access plugins get as ``ctx.cloud`` (None: no cloud configured).
        stack_users: the stack domain users plugins get as ``ctx.stack_users`` (None: no
            stack user domain configured).
        budget: what evaluating a template's functions may build.
        retention: which names each stored template retains on delete.
        plain: which stored templates map no resource type (see
            :mod:`~thermik.actors.template_types`).
    """

    store: Store
    registry: Registry
    settings: EngineSettings
    engine_id: str
    timers: TimerService
    executor: JobThreads
    threads: JobThreads
    stacks: ActorTable[str] = dataclasses.field(init=False)
    resources: ActorTable[int] = dataclasses.field(init=False)
    seed: int | None = None
    #: Called (from the stack actor's thread) when a stack's actor retired.
    settled: Callable[[str], None] = lambda stack_id: None
    software: SoftwareDeploymentServices | None = None
    nested: NestedStackServices | None = None
    cloud: CloudAccessProvider | None = None
    #: Undoes a deleted stack's delegation (deletes its Keystone trust); None: nothing to undo.
    release_credentials: Callable[[UserCreds], None] | None = None
    stack_users: StackUsers | None = None
    budget: Budget = dataclasses.field(default_factory=Budget)
    #: Which names each stored template retains on delete.
    retention: Retention = dataclasses.field(default_factory=Retention)
    plain: PlainTemplates = dataclasses.field(default_factory=PlainTemplates)
    #: Told each state a stack enters, with its reason, after its event is stored (on the
    #: stack actor's thread: it must return at once). Service mode's notifications.
    stack_observer: Callable[[Stack, State, str], None] | None = None

    def __post_init__(self) -> None:
        # One draw from the OS per engine: seeding each resource's generator from the OS
        # would cost a system call (and a thread switch) per resource.
        self._base_seed = (
            self.seed if self.seed is not None else random.SystemRandom().getrandbits(64)
        )

    def rng(self, version_id: int) -> random.Random:
        """The random source of one resource version."""
        return random.Random(self._base_seed * 1_000_003 + version_id)

    def cloud_for(self, root_id: str, traversal_id: str) -> Callable[[], CloudAccess | None]:
        """What makes a context's ``ctx.cloud``: the traversal's access, found on first use."""
        provider = self.cloud
        if provider is None:
            return lambda: None
        return lambda: provider.for_traversal(root_id, traversal_id)

    def engine_alive(self, engine_id: str) -> bool:
        """Whether ``engine_id`` is this engine, or registered with a recent heartbeat."""
        if engine_id == self.engine_id:
            return True
        limit = datetime.timedelta(seconds=MISSED_HEARTBEATS * self.settings.heartbeat_interval)
        now = datetime.datetime.now(datetime.UTC)
        for record in self.store.list_engines():
            if record.id == engine_id:
                beat = record.last_heartbeat
                if beat.tzinfo is None:
                    beat = beat.replace(tzinfo=datetime.UTC)
                return now - beat <= limit
        return False
