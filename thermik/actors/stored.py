"""Resolving ``get_resource``/``get_attr`` from what the store holds (outputs, fallbacks).

Every version that reached COMPLETE has its attributes stored (all of its plugin's
``attributes_schema`` values, plus :data:`REFERENCE_ID_KEY` holding what ``get_resource``
returns). :class:`StoredResolution` answers the template layer's
:class:`~thermik.template.ResolutionContext` from those values for a stack's *current* versions:
the service resolves outputs with it, and resource actors fall back to it for data a join did
not carry.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from thermik.actors import facade
from thermik.engine.states import State
from thermik.engine.versions import ResourceVersion, version_score
from thermik.errors import AttributeValueError
from thermik.persistence.resource_values import Resource
from thermik.persistence.store import Store
from thermik.template.paths import select_path

#: The key of the stored attributes that holds the version's reference id.
REFERENCE_ID_KEY = "__reference_id__"
#: The key of the stored attributes that holds, by attribute name, why an attribute could not
#: be resolved (:class:`~thermik.errors.AttributeValueError`): reading one raises it again.
ERRORS_KEY = "__attribute_errors__"
#: ``Fn::GetAZs`` without a cloud, as Heat answers it.
DEFAULT_ZONES = ("nova",)
#: How a path key (see :func:`attribute_key`) starts; attribute names never do.
_PATH_KEY_START = "["


def attribute_key(attribute: str, path: Sequence[str | int] = ()) -> str:
    """The key a value is stored under: the attribute name, or for an attribute with a path
    that its plugin applies itself (group types), the JSON list of name and path."""
    return json.dumps([attribute, *path]) if path else attribute


def split_attribute_key(key: str) -> tuple[str, tuple[str | int, ...]]:
    """The attribute name and path of an :func:`attribute_key`."""
    if not key.startswith(_PATH_KEY_START):
        return key, ()
    attribute, *path = json.loads(key)
    return str(attribute), tuple(path)


def select_stored(values: Mapping[Any, Any], attribute: str, path: Sequence[str | int]) -> Any:
    """A stored attribute value: the value its plugin resolved for ``path`` when one was
    stored, else the path followed into the whole attribute.

    Raises:
        AttributeValueError: the attribute could not be resolved when it was stored.
    """
    errors = values.get(ERRORS_KEY)
    if isinstance(errors, Mapping) and attribute in errors:
        raise AttributeValueError(str(errors[attribute]))
    if path:
        key = attribute_key(attribute, path)
        if key in values:
            return values[key]
    return select_path(values.get(attribute), path)


def plain_attributes(values: Mapping[str, Any]) -> dict[str, Any]:
    """Stored attribute values by name (no reference id, no path keys)."""
    return {
        k: v
        for k, v in values.items()
        if k not in (REFERENCE_ID_KEY, ERRORS_KEY) and not k.startswith(_PATH_KEY_START)
    }


def to_version(
    row: Resource, shared: dict[tuple[int, ...], frozenset[int]] | None = None
) -> ResourceVersion:
    """What the engine needs of a resource row.

    ``shared`` collects the ``requires`` sets already made: versions that required the same
    versions (a layer of a stack requiring all of the previous one) share one set.
    """
    requires = None if shared is None else shared.get(row.requires)
    if requires is None:
        requires = frozenset(row.requires)
        if shared is not None:
            shared[row.requires] = requires
    return ResourceVersion(
        id=row.id,
        name=row.name,
        state=State.parse(f"{row.action}_{row.status}"),
        template_id=row.current_template_id,
        requires=requires,
        replaces=row.replaces,
        replaced_by=row.replaced_by,
    )


def current_versions(rows: Sequence[Resource], template_id: int | None) -> dict[str, Resource]:
    """The version of each name that stands for it now (as a new traversal would choose)."""
    best: dict[str, tuple[tuple[int, int], Resource]] = {}
    for row in rows:
        version = to_version(row)
        if version.deleted:
            continue
        score = version_score(
            version, new_template_id=template_id or -1, current_template_id=template_id
        )
        held = best.get(row.name)
        if held is None or score > held[0]:
            best[row.name] = (score, row)
    return {name: row for name, (_, row) in best.items()}


class StoredResolution:
    """A :class:`~thermik.template.ResolutionContext` over a stack's stored attribute values.

    Rows and attributes are read once, lazily, and kept: build a new one to see later changes.
    Safe to share between threads.
    """

    def __init__(self, store: Store, stack_id: str) -> None:
        self._store = store
        self._stack_id = stack_id
        self._rows: dict[str, Resource] | None = None
        self._values: dict[int, Mapping[str, Any]] = {}
        self._lock = threading.Lock()
        self._parent: facade.Parent | None = None
        self._parent_read = False

    def _row(self, name: str) -> Resource | None:
        with self._lock:
            if self._rows is None:
                stack = self._store.get_stack(self._stack_id, show_deleted=True)
                rows = self._store.list_resources(self._stack_id)
                self._rows = current_versions(rows, stack.raw_template_id)
            return self._rows.get(name)

    def stored_values(self, version_id: int) -> Mapping[str, Any]:
        """The stored attributes of a version (empty when none were stored)."""
        with self._lock:
            cached = self._values.get(version_id)
        if cached is None:
            cached = self._store.get_resource_attributes(version_id) or {}
            with self._lock:
                self._values[version_id] = cached
        return cached

    def _values_of(self, name: str) -> Mapping[str, Any] | None:
        row = self._row(name)
        return None if row is None else self.stored_values(row.id)

    def reference_id(self, name: str) -> str | None:
        row = self._row(name)
        if row is None:
            return None
        values = self.stored_values(row.id)
        if REFERENCE_ID_KEY in values:
            found: str | None = values[REFERENCE_ID_KEY]
            return found
        return row.physical_resource_id

    def attribute(self, name: str, attr: str, path: Sequence[str | int]) -> Any:
        values = self._values_of(name)
        return None if values is None else select_stored(values, attr, path)

    def all_attributes(self, name: str) -> Mapping[str, Any]:
        return plain_attributes(self._values_of(name) or {})

    def facade(self, key: str) -> Any:
        """The parent resource's ``metadata``, ``update_policy`` or ``deletion_policy``."""
        with self._lock:
            if not self._parent_read:
                self._parent = facade.parent_definition(self._store, self._stack_id)
                self._parent_read = True
            found = self._parent
        parent_ctx = StoredResolution(self._store, found[0]) if found is not None else self
        return facade.facade(found, key, parent_ctx)

    def availability_zones(self) -> list[str]:
        return list(DEFAULT_ZONES)
