"""The ``resource_registry`` of an environment: type aliases, globs, template resources,
per-resource mappings, hooks and restricted actions, resolved with Heat's precedence.

Lookup of a type gathers the candidate entries (a template file named as the type, the
resource's own ``resources: {name: {type: ...}}`` entry, the exact entry, matching globs),
orders them as Heat does (longer registry paths first, then by path text), and follows the
first that leads somewhere: an alias leads to another lookup, a template entry to a template
resource. When no entry applies the type is a built-in plugin type, which the caller may
check with ``known_types``. A built-in type that is not known makes Heat skip that entry
and try the next, and so does this registry.
"""

from __future__ import annotations

import dataclasses
import fnmatch
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from thermik.errors import EnvironmentError_, ResourceTypeNotFound

HOOK_TYPES = (
    "pre-create",
    "pre-update",
    "pre-delete",
    "post-create",
    "post-update",
    "post-delete",
)
RESTRICTED_ACTIONS = ("update", "replace")
TEMPLATE_SUFFIXES = (".yaml", ".template")

KnownTypes = Callable[[str], bool]


def is_template_name(name: str) -> bool:
    """Whether a type name or registry value names a template file (Heat's rule)."""
    return name.endswith(TEMPLATE_SUFFIXES)


@dataclasses.dataclass(frozen=True, slots=True)
class ResolvedType:
    """What a resource's ``type`` turned out to be.

    ``type`` is the type as written; ``implementation`` is the built-in plugin type that
    implements it (``kind == "builtin"``) or the files-map key of the template that does
    (``kind == "template"``, with its text in ``template``). ``entry`` is the registry path of
    the entry that named the template (``None`` when the type itself is a file name); a
    nested stack's environment leaves it out (see :meth:`Environment.child`).
    """

    type: str
    kind: str
    implementation: str
    template: str | None = None
    entry: tuple[str, ...] | None = None

    @property
    def is_template(self) -> bool:
        return self.kind == "template"


@dataclasses.dataclass(frozen=True, slots=True)
class _Entry:
    path: tuple[str, ...]
    value: str

    @property
    def name(self) -> str:
        return self.path[-1]

    def order(self) -> tuple[int, tuple[str, ...]]:
        return (-len(self.path), self.path)


def _check_listed(key: str, value: Any, allowed: tuple[str, ...], what: str) -> None:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(i, str) and i in allowed for i in items):
        raise EnvironmentError_(
            f'Invalid {what} "{value}", acceptable values are: ' + ", ".join(allowed),
            path=("resource_registry", key),
        )


class ResourceRegistry:
    """A loaded ``resource_registry`` section (one user environment's)."""

    def __init__(self) -> None:
        self._types: dict[str, str] = {}
        self._resources: dict[str, dict[str, Any]] = {}

    @classmethod
    def from_mapping(cls, data: Mapping[Any, Any] | None) -> ResourceRegistry:
        registry = cls()
        registry.load(data or {})
        return registry

    def load(self, data: Mapping[Any, Any]) -> None:
        """Add ``data`` on top of what is loaded; ``null`` values unregister (globs too)."""
        if not isinstance(data, Mapping):
            raise EnvironmentError_("resource_registry must be a map", path=("resource_registry",))
        for key, value in data.items():
            where = ("resource_registry", str(key))
            if not isinstance(key, str):
                raise EnvironmentError_("registry keys must be strings", path=where)
            if key == "resources":
                self._load_resources(value)
            elif key == "base_url":
                continue
            elif value is None:
                self._unregister(self._types, key)
            elif isinstance(value, str):
                self._types[key] = value
            else:
                raise EnvironmentError_(
                    "a registry entry must be a type name, a template or null", path=where
                )

    def _load_resources(self, value: Any) -> None:
        if value is None:
            return
        if not isinstance(value, Mapping):
            raise EnvironmentError_(
                "resources must map resource names to registries",
                path=("resource_registry", "resources"),
            )
        for name, entry in value.items():
            if not isinstance(name, str) or not isinstance(entry, Mapping):
                raise EnvironmentError_(
                    "each resources entry must be a map",
                    path=("resource_registry", "resources", str(name)),
                )
            merged = self._resources.setdefault(name, {})
            self._load_resource_entry(merged, entry, ("resources", name))

    def _load_resource_entry(
        self, target: dict[str, Any], entry: Mapping[Any, Any], where: tuple[str, ...]
    ) -> None:
        for key, value in entry.items():
            path = "/".join((*where, str(key)))
            if key == "hooks":
                _check_listed(path, value, HOOK_TYPES, "hook type")
                target[key] = value
            elif key == "restricted_actions":
                _check_listed(path, value, RESTRICTED_ACTIONS, "restricted_action type")
                target[key] = value
            elif value is None:
                self._unregister(target, str(key))
            elif isinstance(value, str):
                target[str(key)] = value
            elif isinstance(value, Mapping):
                nested = target.setdefault(str(key), {})
                if not isinstance(nested, dict):
                    nested = target[str(key)] = {}
                self._load_resource_entry(nested, value, (*where, str(key)))
            else:
                raise EnvironmentError_(
                    "a registry entry must be a type name, a template, a map or null",
                    path=("resource_registry", *where, str(key)),
                )

    @staticmethod
    def _unregister(table: dict[str, Any], key: str) -> None:
        if key.endswith("*"):
            for name in [n for n, v in table.items() if isinstance(v, str)]:
                if name.startswith(key[:-1]):
                    del table[name]
        else:
            table.pop(key, None)

    def _candidates(self, type_name: str, resource_name: str | None) -> Iterator[_Entry]:
        if is_template_name(type_name):
            yield _Entry((type_name,), type_name)
        if resource_name is not None:
            own = self._resources.get(resource_name, {}).get(type_name)
            if isinstance(own, str):
                yield _Entry(("resources", resource_name, type_name), own)
        exact = self._types.get(type_name)
        if exact is not None:
            yield _Entry((type_name,), exact)
        for name, value in self._types.items():
            if name.endswith("*") and type_name != value and type_name.startswith(name[:-1]):
                yield _Entry((name,), value)

    def resolve(
        self,
        type_name: str,
        resource_name: str | None = None,
        known_types: KnownTypes | None = None,
    ) -> ResolvedType:
        """What ``type_name`` means for resource ``resource_name``.

        Raises :class:`ResourceTypeNotFound` when nothing implements it (only detectable
        with ``known_types``) and :class:`EnvironmentError_` when aliases loop.
        """
        found = self._resolve(type_name, resource_name, known_types, ())
        if found is None:
            raise ResourceTypeNotFound(f"The Resource Type ({type_name}) could not be found.")
        return dataclasses.replace(found, type=type_name)

    def _resolve(
        self,
        type_name: str,
        resource_name: str | None,
        known_types: KnownTypes | None,
        seen: tuple[str, ...],
    ) -> ResolvedType | None:
        if type_name in seen:
            chain = " -> ".join((*seen, type_name))
            raise EnvironmentError_(f"resource type mappings loop: {chain}")
        seen = (*seen, type_name)
        for entry in sorted(self._candidates(type_name, resource_name), key=_Entry.order):
            found = self._follow(entry, type_name, resource_name, known_types, seen)
            if found is not None:
                return found
        if known_types is None or known_types(type_name):
            return ResolvedType(type_name, "builtin", type_name)
        return None

    def _follow(
        self,
        entry: _Entry,
        type_name: str,
        resource_name: str | None,
        known_types: KnownTypes | None,
        seen: tuple[str, ...],
    ) -> ResolvedType | None:
        if is_template_name(entry.name):
            return ResolvedType(type_name, "template", entry.name)
        if is_template_name(entry.value):
            return ResolvedType(type_name, "template", entry.value, entry=entry.path)
        target = entry.value
        if entry.name.endswith("*") and target.endswith("*"):
            target = target[:-1] + type_name[len(entry.name) - 1 :]
        return self._resolve(target, resource_name, known_types, seen)

    def child(self, resource_name: str, without: tuple[str, ...] | None) -> ResourceRegistry:
        """The registry of the nested stack behind resource ``resource_name``.

        As Heat's child environments: every type entry is kept except ``without`` (the entry
        that made the resource a template resource, so a template may use the type it
        implements), and ``resources`` becomes what the parent's entries matching
        ``resource_name`` hold (so ``resources: {web: {db: {hooks: ...}}}`` reaches ``db``
        inside ``web``).
        """
        registry = ResourceRegistry()
        registry._types = dict(self._types)
        scoped: dict[str, Any] = {}
        for pattern, entry in self._resources.items():
            if fnmatch.fnmatchcase(resource_name, pattern):
                scoped.update(_copy(entry))
        scoped.update(_copy(self._resources.get(resource_name, {})))
        registry._resources = {k: v for k, v in scoped.items() if isinstance(v, dict)}
        if without is not None:
            table: dict[str, Any] = registry._types
            if without[0] == "resources":
                table = registry._resources.get(without[1], {})
            table.pop(without[-1], None)
        return registry

    def hooks(self, resource_name: str) -> frozenset[str]:
        """The hooks set for ``resource_name`` (entries may be fnmatch patterns)."""
        return self._listed(resource_name, "hooks")

    def restricted_actions(self, resource_name: str) -> frozenset[str]:
        """The restricted actions (``update``, ``replace``) for ``resource_name``."""
        return self._listed(resource_name, "restricted_actions")

    def _listed(self, resource_name: str, key: str) -> frozenset[str]:
        found: set[str] = set()
        for pattern, entry in self._resources.items():
            if key in entry and fnmatch.fnmatchcase(resource_name, pattern):
                value = entry[key]
                found.update([value] if isinstance(value, str) else value)
        return frozenset(found)

    def as_dict(self) -> dict[str, Any]:
        """The registry as an environment would write it (``resources`` always present)."""
        out: dict[str, Any] = dict(self._types)
        out["resources"] = _copy(self._resources)
        return out


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return list(value)
    return value
