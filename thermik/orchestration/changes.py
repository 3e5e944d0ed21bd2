"""What an update would do to each resource, without doing it (``preview_update``).

Each resource of the new definition is compared with its current stored version: new names
are added, missing ones deleted; for the others the plugin's own update planning decides
(:func:`thermik.resources.plan_update`: immutable properties are refused, then the plugin says
whether the change needs a replacement). New properties are resolved against the stored
resources, as the update itself would resolve them.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping

from thermik.actors.stored import StoredResolution
from thermik.api.boundary import ResourceChanges, ResourceView, StackIdentity
from thermik.errors import PluginError, ThermikError
from thermik.orchestration.base import identity_of
from thermik.orchestration.checks import static_properties, without_runtime
from thermik.orchestration.versions import current_resources
from thermik.orchestration.views import planned_resource_view, resource_view
from thermik.persistence.resource_values import Resource
from thermik.persistence.store import Store
from thermik.persistence.values import Stack
from thermik.resources import Registry, plan_update
from thermik.resources import StackIdentity as PluginStack
from thermik.template import ResourceDefinition, StackDefinition


class _ReadOnlyData:
    """A resource's stored data, which planning may read and never write."""

    def __init__(self, values: Mapping[str, str]) -> None:
        self._values = dict(values)

    def get(self, key: str) -> str | None:
        return self._values.get(key)

    def set(self, key: str, value: str, *, redact: bool = False) -> None:
        raise PluginError(f"planning an update must not store resource data ({key})")

    def delete(self, key: str) -> None:
        raise PluginError(f"planning an update must not delete resource data ({key})")

    def as_dict(self) -> Mapping[str, str]:
        return dict(self._values)


class _WallClock:
    """Real time; planning has no reason to wait."""

    def now(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        raise PluginError("planning an update must not wait")


class PlanningContext:
    """The plugin's view of a stored resource version while an update is planned."""

    def __init__(
        self,
        stack: Stack,
        resource: Resource,
        data: Mapping[str, str],
        peers: Callable[[str], Mapping[str, str] | None],
    ) -> None:
        self._stack = PluginStack(stack.id, stack.name, stack.tenant)
        self._resource = resource
        self._data = _ReadOnlyData(data)
        self._peers = peers
        self._clock = _WallClock()
        self._random = random.Random()

    @property
    def stack(self) -> PluginStack:
        return self._stack

    @property
    def resource_name(self) -> str:
        return self._resource.name

    @property
    def resource_type(self) -> str:
        return self._resource.resource_type

    @property
    def version_id(self) -> int:
        return self._resource.id

    @property
    def physical_id(self) -> str | None:
        return self._resource.physical_resource_id

    def set_physical_id(self, physical_id: str | None) -> None:
        raise PluginError("planning an update must not change the physical id")

    @property
    def data(self) -> _ReadOnlyData:
        return self._data

    @property
    def clock(self) -> _WallClock:
        return self._clock

    @property
    def random(self) -> random.Random:
        return self._random

    def peer_data(self, reference_id: str) -> Mapping[str, str] | None:
        return self._peers(reference_id)


class _Planner:
    """One preview of an update of ``stack`` to ``definition``."""

    def __init__(
        self, store: Store, registry: Registry, stack: Stack, definition: StackDefinition
    ) -> None:
        self.store = store
        self.registry = registry
        self.stack = stack
        self.definition = definition
        self.identity: StackIdentity = identity_of(stack)
        self.resolution = StoredResolution(store, stack.id)
        self.required_by = definition.required_by()
        #: One budget for every resource the preview shows.
        self.meter = definition.meter()

    def kind(self, resource: ResourceDefinition, stored: Resource) -> str:
        """``replaced``, ``updated`` or ``unchanged``."""
        if resource.type != stored.resource_type:
            return "replaced"
        if resource.resolved.is_template:
            return "updated"
        plugin = self.registry.get(resource.resolved.implementation, resource=resource.name)
        if stored.status == "FAILED" and plugin.replace_if_failed:
            return "replaced"
        try:
            resolved = self.definition.resolve_properties(resource.name, self.resolution)
            new = plugin.check_properties(
                resolved, path=("resources", resource.name, "properties")
            )
        except ThermikError:
            # Depends on values only the update itself will know: it changes at least that.
            return "updated"
        old = self.store.get_resource_properties(stored.id) or {}
        data = self.store.get_resource_data(stored.id)
        context = PlanningContext(self.stack, stored, data, self.peer_data)
        plan = plan_update(plugin(), context, new, old)
        if plan.replacement is not None:
            return "replaced"
        return "updated" if plan.changed else "unchanged"

    def peer_data(self, reference_id: str) -> Mapping[str, str] | None:
        """The data of the current resource whose reference id is ``reference_id``."""
        for name, resource in current_resources(self.store, self.stack).items():
            if self.resolution.reference_id(name) == reference_id:
                return self.store.get_resource_data(resource.id)
        return None

    def added(self, name: str) -> ResourceView:
        resource = self.definition.resources[name]
        properties = without_runtime(static_properties(self.definition, name, meter=self.meter))
        return planned_resource_view(
            name,
            resource.type,
            self.identity,
            required_by=sorted(self.required_by[name]),
            description=resource.description,
            properties=properties if isinstance(properties, dict) else {},
        )

    def changes(self) -> ResourceChanges:
        current = current_resources(self.store, self.stack)
        found: dict[str, list[ResourceView]] = {
            key: [] for key in ("added", "deleted", "replaced", "updated", "unchanged")
        }
        for name in self.definition.creation_order():
            stored = current.get(name)
            if stored is None:
                found["added"].append(self.added(name))
                continue
            kind = self.kind(self.definition.resources[name], stored)
            view = resource_view(stored, self.identity, required_by=sorted(self.required_by[name]))
            found[kind].append(view)
        for name, stored in current.items():
            if name not in self.definition.resources:
                found["deleted"].append(resource_view(stored, self.identity))
        return ResourceChanges(**{key: tuple(views) for key, views in found.items()})


def plan_changes(
    store: Store, registry: Registry, stack: Stack, definition: StackDefinition
) -> ResourceChanges:
    """What updating ``stack`` to ``definition`` would do, by resource."""
    return _Planner(store, registry, stack, definition).changes()
