"""The resource type registry: type name -> plugin class, loaded from entry points.

The composition root builds one :class:`Registry` with :meth:`Registry.from_entry_points` and
passes it to whoever needs it; there is no global registry and no module scanning. Tests build
their own instance and :meth:`~Registry.register` extra classes on it.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Iterator, Mapping
from importlib import metadata
from typing import Any

from thermik.errors import PluginError, ResourceTypeNotFound
from thermik.resources.plugin import ResourcePlugin
from thermik.resources.schema import BASE_ATTRIBUTES, SupportLevel
from thermik.resources.stack_view import StackView

#: The entry point group resource plugins register under (name = type, value = module:Class).
ENTRY_POINT_GROUP = "thermik.resources"


class Registry:
    """Resource types known to one engine."""

    def __init__(self, plugins: Mapping[str, type[ResourcePlugin]] | None = None) -> None:
        self._plugins: dict[str, type[ResourcePlugin]] = {}
        for type_name, plugin in (plugins or {}).items():
            self.register(type_name, plugin)

    @classmethod
    def from_entry_points(cls, group: str = ENTRY_POINT_GROUP) -> Registry:
        """Load every plugin registered in ``group`` by the installed distributions.

        Raises:
            PluginError: an entry point cannot be imported, is not a ResourcePlugin subclass, or
                two distributions register the same type name with different classes.
        """
        return cls.from_entries(metadata.entry_points(group=group))

    @classmethod
    def from_entries(cls, entry_points: Iterable[metadata.EntryPoint]) -> Registry:
        """Load the given entry points (name = type, value = ``module:Class``).

        Raises:
            PluginError: as for :meth:`from_entry_points`.
        """
        return cls(dict(_load(entry_points)))

    def register(self, type_name: str, plugin: type[ResourcePlugin]) -> None:
        """Add (or replace) the plugin class for ``type_name``.

        Raises:
            PluginError: ``plugin`` is not a concrete ResourcePlugin subclass.
        """
        _check_plugin(type_name, plugin, where=repr(plugin))
        self._plugins[type_name] = plugin

    def get(self, type_name: str, *, resource: str | None = None) -> type[ResourcePlugin]:
        """The plugin class of ``type_name``.

        Raises:
            ResourceTypeNotFound: no such type; the error names ``resource`` when given.
        """
        try:
            return self._plugins[type_name]
        except KeyError:
            raise ResourceTypeNotFound(
                f"The Resource Type ({type_name}) could not be found.",
                path=("resources", resource) if resource else (),
                resource=resource,
            ) from None

    def implied(self, name: str, stack: StackView) -> Iterable[str]:
        """The dependencies resource ``name``'s type infers (an
        :data:`~thermik.template.implied.ImpliedRule` for ``build_stack``)."""
        kind = stack.type_of(name)
        plugin = self._plugins.get(kind) if kind is not None else None
        return () if plugin is None else plugin.implied_requirements(name, stack)

    def __contains__(self, type_name: object) -> bool:
        return type_name in self._plugins

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._plugins))

    def __len__(self) -> int:
        return len(self._plugins)

    def describe(self, type_name: str, *, with_description: bool = False) -> dict[str, Any]:
        """The schema of a type as Heat's resource-type show API returns it.

        Hidden and unimplemented properties and hidden attributes are left out; ``show`` is
        included, as every resource has it.

        Raises:
            ResourceTypeNotFound: no such type.
        """
        plugin = self.get(type_name)
        attributes = {**plugin.attributes_schema, **BASE_ATTRIBUTES}
        out: dict[str, Any] = {
            "resource_type": type_name,
            "properties": {
                name: schema.as_dict()
                for name, schema in plugin.properties_schema.items()
                if schema.implemented and schema.support_status.status != SupportLevel.HIDDEN
            },
            "attributes": {
                name: schema.as_dict()
                for name, schema in attributes.items()
                if schema.support_status.status != SupportLevel.HIDDEN
            },
            "support_status": plugin.support_status.as_dict(),
        }
        if with_description:
            out["description"] = inspect.getdoc(plugin) or ""
        return out

    def types(self, *, include_hidden: bool = False) -> list[str]:
        """Type names for listings, sorted; hidden (retired alias) types only when asked."""
        return [
            name
            for name in self
            if include_hidden or self._plugins[name].support_status.status != SupportLevel.HIDDEN
        ]


def _load(entry_points: Iterable[metadata.EntryPoint]) -> Iterator[tuple[str, type]]:
    seen: dict[str, str] = {}
    for ep in entry_points:
        previous = seen.get(ep.name)
        if previous is not None and previous != ep.value:
            raise PluginError(
                f"Resource type {ep.name} is registered twice: {previous} and {ep.value}"
            )
        seen[ep.name] = ep.value
        try:
            plugin = ep.load()
        except Exception as exc:  # any import-time failure of third-party code
            raise PluginError(
                f"Resource type {ep.name}: cannot load {ep.value}: {type(exc).__name__}: {exc}"
            ) from exc
        _check_plugin(ep.name, plugin, where=ep.value)
        yield ep.name, plugin


def _check_plugin(type_name: str, plugin: object, *, where: str) -> None:
    if not (isinstance(plugin, type) and issubclass(plugin, ResourcePlugin)):
        raise PluginError(f"Resource type {type_name}: {where} is not a ResourcePlugin subclass")
    abstract: frozenset[str] = getattr(plugin, "__abstractmethods__", frozenset())
    if abstract:
        missing = ", ".join(sorted(abstract))
        raise PluginError(f"Resource type {type_name}: {where} does not implement {missing}")
