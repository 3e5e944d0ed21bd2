"""``get_attr`` of an attribute the resource's type does not have, refused before anything runs.

As Heat's ``GetAtt.validate`` at stack validation: a ``get_attr`` naming a literal attribute that
the type of the resource does not declare (and that is not one every resource has, such as
``show``) is an error at its place, "The Referenced Attribute (r nonexistent) is incorrect.",
in resource properties and metadata as in outputs. Types whose attributes depend on their
properties or templates (groups, deployments, ``OS::Heat::None``) take any name.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from thermik.actors.plan import plugin_class
from thermik.errors import FunctionError, ThermikError
from thermik.resources import Registry
from thermik.template import StackDefinition
from thermik.template.functions.base import Function
from thermik.template.functions.references import GetAttThenSelect


def check_attribute_references(definition: StackDefinition, registry: Registry) -> None:
    """Refuse every ``get_attr`` of ``definition`` naming an attribute its resource's type
    does not have."""
    readers: list[Any] = []
    for resource in definition.resources.values():
        readers.extend((resource.properties, resource.metadata))
    readers.extend(output.value for output in definition.outputs.values() if output.enabled)
    for fn in _get_attrs(readers):
        args = fn.args
        if len(args) < 2 or not isinstance(args[1], str):
            continue
        if fn.resource not in definition.resources:
            continue
        try:
            plugin = plugin_class(registry, definition, fn.resource)
        except ThermikError:
            continue
        if not plugin.has_attribute(args[1]):
            raise FunctionError(
                f"The Referenced Attribute ({fn.resource} {args[1]}) is incorrect.",
                path=fn.path,
                resource=fn.resource,
            )


def _get_attrs(value: Any) -> Iterator[GetAttThenSelect]:
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, Function):
            if isinstance(item, GetAttThenSelect) and isinstance(item.args, list):
                yield item
            pending.append(item.args)
        elif isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
