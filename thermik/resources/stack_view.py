"""What a resource type sees of its stack when it infers dependencies (Heat's
``add_dependencies``): :class:`StackView`, which the template layer implements."""

from __future__ import annotations

from typing import Any, Protocol


class StackView(Protocol):
    """The stack's resources as written: types, properties, explicit requirements.

    Property values have every function that needs no resource resolved (parameters, files,
    conditions); a reference to a resource stays a parsed call, equal to another reference to
    the same resource and attribute.
    """

    def type_of(self, name: str) -> str | None:
        """The built-in type implementing resource ``name`` (``None``: a template resource,
        or no such resource)."""
        ...

    def of_type(self, *types: str) -> list[str]:
        """The resources implemented by one of the built-in ``types``, by name."""
        ...

    def requires(self, name: str) -> frozenset[str]:
        """The resources ``name`` requires explicitly (``depends_on`` and references)."""
        ...

    def prop(self, name: str, *path: str | int) -> Any:
        """Property ``path`` of resource ``name``, ``None`` where unset or not yet known."""
        ...

    def resource_named(self, value: Any) -> str | None:
        """The resource ``value`` refers to with ``get_resource``, if it does."""
        ...
