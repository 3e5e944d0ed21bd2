"""Checking a stack's resources against their plugins before anything runs.

This is the half of Heat's stack validation that needs the plugin registry: every resource's
type must exist, and every property value known before the stack runs must satisfy the type's
schema. Values that need runtime data (``get_attr``, ``get_resource``) are left for the
resource actor, which validates again once they are resolved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from thermik.errors import ThermikError
from thermik.resources.constraints import CustomValidator
from thermik.resources.registry import Registry
from thermik.template import StackDefinition, is_unresolved
from thermik.template.definitions import ResourceDefinition


def known_types(registry: Registry) -> Callable[[str], bool]:
    """The template layer's ``known_types`` predicate for ``registry``."""
    return registry.__contains__


def validate_resources(
    stack: StackDefinition,
    registry: Registry,
    *,
    custom_constraints: Mapping[str, CustomValidator] | None = None,
) -> None:
    """Raise the first error found in any resource's type or properties.

    Raises:
        ResourceTypeNotFound: a built-in type that no plugin implements.
        PropertyError: a property fails its schema; the path names resource and property.
        FunctionError, ParameterError: a function in a property cannot be resolved.
    """
    for name, defn in stack.resources.items():
        if defn.resolved.is_template:
            continue  # validated as a nested stack when it is created
        plugin = registry.get(defn.resolved.implementation, resource=name)
        values = _known_properties(stack, defn)
        plugin.check_properties(
            values,
            unresolved=is_unresolved,
            custom_constraints=custom_constraints,
            path=("resources", name, "properties"),
        )


def _known_properties(stack: StackDefinition, defn: ResourceDefinition) -> Any:
    """Property values resolved where they can be; runtime-only ones stay as functions."""
    props = defn.properties
    if not isinstance(props, Mapping):
        return props if props is None or is_unresolved(props) else stack.resolve(props)
    return {
        key: value if is_unresolved(value) else _resolve(stack, defn.name, key, value)
        for key, value in props.items()
    }


def _resolve(stack: StackDefinition, resource: str, key: str, value: Any) -> Any:
    try:
        return stack.resolve(value)
    except ThermikError as exc:
        # Functions name their own place; a bare error still needs the property's.
        if not exc.path:
            raise exc.at("resources", resource, "properties", key) from None
        raise
