"""Dependencies a resource type infers from its properties, as Heat's ``add_dependencies`` does.

Some orderings no template states: a port on a network needs that network's subnets first
(Neutron gives it no address otherwise), a floating IP needs the router interface that makes
its port reachable from the external network. Heat's resource types add such edges
themselves; here the resource types do too, through an :data:`ImpliedRule` the stack's
dependency graph asks (:meth:`~thermik.template.definitions.StackDefinition.dependencies`).

A rule reads the stack through a :class:`StackView`: the resources' types and their
properties as written, with every function that needs no resource resolved (parameters,
files, conditions) and references to resources left as parsed calls, which compare equal when
they name the same resource and attribute (as Heat compares its unresolved references). An
implied edge that would close a cycle is left out: explicit dependencies win.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from thermik.errors import ThermikError
from thermik.template.functions.base import Function
from thermik.template.functions.references import GetResource

if TYPE_CHECKING:
    from thermik.template.definitions import ResourceDefinition

#: Names of the resources ``name`` requires beyond what it references, given the stack.
ImpliedRule = Callable[[str, "StackView"], Iterable[str]]


class StackView:
    """What an implied-dependency rule may read of a stack (see the module docstring)."""

    def __init__(
        self,
        resources: Mapping[str, ResourceDefinition],
        requires: Mapping[str, frozenset[str]],
        static: Callable[[Any], Any],
    ) -> None:
        self._resources = resources
        self._requires = requires
        self._static = static
        self._by_type: dict[str, list[str]] | None = None

    def type_of(self, name: str) -> str | None:
        """The built-in plugin type implementing resource ``name`` (``None``: a template
        resource, or no such resource)."""
        found = self._resources.get(name)
        if found is None or found.resolved.is_template:
            return None
        return found.resolved.implementation

    def of_type(self, *types: str) -> list[str]:
        """The resources implemented by one of the built-in ``types``, by name."""
        if self._by_type is None:
            by_type: dict[str, list[str]] = {}
            for name in sorted(self._resources):
                kind = self.type_of(name)
                if kind is not None:
                    by_type.setdefault(kind, []).append(name)
            self._by_type = by_type
        return sorted(n for t in types for n in self._by_type.get(t, ()))

    def requires(self, name: str) -> frozenset[str]:
        """The resources ``name`` requires explicitly (``depends_on`` and references)."""
        return self._requires.get(name, frozenset())

    def resource_named(self, value: Any) -> str | None:
        """The resource ``value`` refers to with ``get_resource``, if it does."""
        return value.resource if isinstance(value, GetResource) else None

    def prop(self, name: str, *path: str | int) -> Any:
        """Property ``path`` of resource ``name`` (see the module docstring), or ``None``
        where it is unset or cannot be known before the stack runs."""
        found = self._resources.get(name)
        value = self.value(found.properties) if found is not None else None
        for key in path:
            if isinstance(key, int):
                value = (
                    value[key]
                    if isinstance(value, list) and -len(value) <= key < len(value)
                    else None
                )
            else:
                value = value.get(key) if isinstance(value, dict) else None
        return value

    def value(self, raw: Any) -> Any:
        """``raw`` with every function that needs no resource resolved."""
        if isinstance(raw, Function):
            if raw.needs_runtime:
                return raw
            try:
                return self.value(self._static(raw))
            except ThermikError:
                return None  # the template's checks report it where it is used
        if isinstance(raw, dict):
            return {k: self.value(v) for k, v in raw.items()}
        if isinstance(raw, list):
            return [self.value(v) for v in raw]
        return raw


def add_implied(
    requires: dict[str, frozenset[str]], view: StackView, rule: ImpliedRule
) -> dict[str, frozenset[str]]:
    """``requires`` with what ``rule`` implies for each resource added (in name order), each
    implied edge that would close a cycle left out."""
    for name in sorted(requires):
        extra = [dep for dep in rule(name, view) if dep in requires and dep != name]
        for dep in sorted(set(extra) - requires[name]):
            if not _reaches(requires, dep, name):
                requires[name] = requires[name] | {dep}
    return requires


def _reaches(requires: Mapping[str, frozenset[str]], start: str, goal: str) -> bool:
    """Whether ``start`` requires ``goal``, directly or through others."""
    seen = {start}
    todo = [start]
    while todo:
        for dep in requires.get(todo.pop(), ()):
            if dep == goal:
                return True
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return False
