"""The :class:`~thermik.resources.ResourceContext` plugins get under the actor shell.

Resource data is read from the store once (not at all for a version that was never created)
and written through at once: a plugin's ``ctx.data.set`` is durable when it returns, before the
engine acts on the action's outcome. The physical id a plugin sets is persisted by the resource
actor with the action's outcome. Time is the wall clock; randomness comes from a per-version
generator, seeded when the runtime is given a seed (tests), from the OS otherwise.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping

from thermik.actors.stored import current_versions
from thermik.persistence.resource_values import DataWrite
from thermik.persistence.store import Store
from thermik.resources.cloud_access import CloudAccess
from thermik.resources.context import DELETE_POLICY, StackIdentity, checked_physical_id
from thermik.resources.nested_services import NestedStackServices
from thermik.resources.software_services import SoftwareDeploymentServices
from thermik.resources.stack_users import StackUserServices


class SystemClock:
    """The wall clock."""

    def now(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


SYSTEM_CLOCK = SystemClock()


_DELETED = None


class StoredData:
    """A resource version's data in the store: written through at once, read at most once.

    What was written through this object is known without reading; the stored keys are read
    only when a key not written here is asked for. Data ``deferred`` keeps what is written
    until :meth:`take` (the engine stores it with the action: a store-only plugin's action run
    before its row is locked) or :meth:`flush`; then it writes through again.
    """

    def __init__(
        self, store: Store, resource_id: int, *, known_empty: bool = False, deferred: bool = False
    ) -> None:
        self._store = store
        self._resource_id = resource_id
        self._loaded: dict[str, str] | None = {} if known_empty else None
        self._written: dict[str, str | None] = {}
        self._lock = threading.Lock()
        self._deferred: dict[str, DataWrite] | None = {} if deferred else None

    def _stored(self) -> dict[str, str]:
        with self._lock:
            if self._loaded is None:
                self._loaded = dict(self._store.get_resource_data(self._resource_id))
            return self._loaded

    def get(self, key: str) -> str | None:
        if key in self._written:
            return self._written[key]
        return self._stored().get(key)

    def set(self, key: str, value: str, *, redact: bool = False) -> None:
        if self._deferred is not None:
            self._deferred[key] = DataWrite(key, value, redact)
        else:
            self._store.set_resource_data(self._resource_id, key, value, redact=redact)
        self._written[key] = value

    def delete(self, key: str) -> None:
        if self._deferred is not None:
            self._deferred[key] = DataWrite(key, None)
        else:
            self._store.delete_resource_data(self._resource_id, key)
        self._written[key] = _DELETED

    def take(self) -> list[DataWrite]:
        """What was written while deferred, for the caller to store; writes go through from
        now on."""
        deferred, self._deferred = self._deferred or {}, None
        return list(deferred.values())

    def flush(self) -> None:
        """Store what was written while deferred; writes go through from now on."""
        for write in self.take():
            if write.value is None:
                self.delete(write.key)
            else:
                self.set(write.key, write.value, redact=write.redact)

    def as_dict(self) -> Mapping[str, str]:
        merged = dict(self._stored())
        for key, value in self._written.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        return merged


class StoreContext:
    """One resource version's context: identity, data, physical id, clock and randomness."""

    def __init__(  # noqa: PLR0913 - one argument per fact of the version
        self,
        store: Store,
        stack: StackIdentity,
        resource_id: int,
        resource_name: str,
        resource_type: str,
        physical_id: str | None,
        *,
        rng: random.Random | Callable[[], random.Random],
        never_created: bool = False,
        deferred_data: bool = False,
        software: SoftwareDeploymentServices | None = None,
        nested: NestedStackServices | None = None,
        cloud: Callable[[], CloudAccess | None] = lambda: None,
        stack_users: StackUserServices | None = None,
        deletion_policy: str = DELETE_POLICY,
    ) -> None:
        self._store = store
        self._stack = stack
        self.resource_id = resource_id
        self._name = resource_name
        self._type = resource_type
        self._physical_id = physical_id
        self._data = StoredData(
            store, resource_id, known_empty=never_created, deferred=deferred_data
        )
        self._rng = rng
        self._software = software
        self._nested = nested
        self._cloud = cloud
        self._stack_users = stack_users
        #: The deletion policy of the version, in a delete (``Delete`` in other actions).
        self.deletion_policy = deletion_policy
        #: Whether the plugin changed the physical id since the context was made.
        self.physical_id_changed = False

    @property
    def stack(self) -> StackIdentity:
        return self._stack

    @property
    def version_id(self) -> int:
        return self.resource_id

    @property
    def resource_name(self) -> str:
        return self._name

    @property
    def resource_type(self) -> str:
        return self._type

    @property
    def physical_id(self) -> str | None:
        return self._physical_id

    def set_physical_id(self, physical_id: str | None) -> None:
        self._physical_id = checked_physical_id(physical_id, self._name)
        self.physical_id_changed = True

    @property
    def data(self) -> StoredData:
        return self._data

    @property
    def clock(self) -> SystemClock:
        return SYSTEM_CLOCK

    @property
    def random(self) -> random.Random:
        if not isinstance(self._rng, random.Random):
            # Seeded on first use: seeding costs more than many a resource action.
            self._rng = self._rng()
        return self._rng

    @property
    def software(self) -> SoftwareDeploymentServices | None:
        """The engine's software deployment services (None when it has no delivery)."""
        return self._software

    @property
    def nested(self) -> NestedStackServices | None:
        """The engine's nested-stack services (None when it was built without them)."""
        return self._nested

    @property
    def cloud(self) -> CloudAccess | None:
        """The stack's cloud access for this traversal (None when the engine has no cloud)."""
        return self._cloud()

    @property
    def stack_users(self) -> StackUserServices | None:
        """The engine's stack domain users (None when no stack user domain is configured)."""
        return self._stack_users

    def peer_data(self, reference_id: str) -> Mapping[str, str] | None:
        """The data of the current version in this stack whose reference id is given."""
        rows = self._store.find_resources_by_physical_id(reference_id)
        mine = [row for row in rows if row.stack_id == self._stack.id]
        if not mine:
            by_name = current_versions(self._store.list_resources(self._stack.id), None)
            row = by_name.get(reference_id)
            if row is None:
                return None
            return self._store.get_resource_data(row.id)
        return self._store.get_resource_data(max(mine, key=lambda r: r.id).id)
