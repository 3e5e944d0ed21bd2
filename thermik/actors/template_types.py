"""Which stored templates give every resource the plugin its type names.

A cleanup node acts on what its version is: the plugin comes from the type the version's own
template gave it, through that template's environment, so finding it builds the template's
definition. Most templates map no type anywhere: their versions' plugins are the registry's
plugins of the types stored on the rows, which need no template at all. Stored templates never
change, so the answer for a template id holds for the engine's life: it is noted whenever a
traversal builds the template's definition anyway (a delete after an update then builds no
definition to find its plugins; for a stack of thousands that is most of a second).
"""

from __future__ import annotations

from thermik.actors.recent import RecentTemplates
from thermik.errors import ThermikError
from thermik.resources.nested_stack import NestedStackResource
from thermik.resources.registry import Registry
from thermik.template import StackDefinition

#: How many templates an engine remembers (one flag each).
REMEMBERED = 4096


def maps_no_type(definition: StackDefinition, registry: Registry) -> bool:
    """Whether every resource of ``definition`` is the registry's plugin of its own type,
    with nothing bound to the template (no template resource, no nested stack)."""
    for resource in definition.resources.values():
        resolved = resource.resolved
        if resolved.is_template or resolved.implementation != resource.type:
            return False
        try:
            plugin = registry.get(resolved.implementation)
        except ThermikError:
            return False
        if issubclass(plugin, NestedStackResource):
            return False
    return True


class PlainTemplates:
    """The engine's memory of which templates map no type (the most recent ones)."""

    def __init__(self, limit: int = REMEMBERED) -> None:
        self._plain: RecentTemplates[bool] = RecentTemplates(limit)

    def note(self, template_id: int, definition: StackDefinition, registry: Registry) -> None:
        """Remember whether the built ``definition`` of ``template_id`` maps any type."""
        self._plain.note(template_id, lambda: maps_no_type(definition, registry))

    def is_plain(self, template_id: int) -> bool:
        """Whether ``template_id`` is known to map no type (``False`` when not known)."""
        return self._plain.peek(template_id) is True
