"""The definitions of stacks' current templates, remembered for the views that only read them.

Showing a stack (what every client waiting on one does, every second or faster), its outputs
or its resources needs the definition of its stored template: reading and decrypting that
template, then building the definition, cost 75 ms for a stack of 5,000 resources, on every
poll. A stored template row never changes and a stack's (id, template id) pair names one
template for good (see :mod:`~thermik.orchestration.descriptions`), so the definition built
for it can be kept. What is kept is bounded by the resources of the definitions (the least
recently used go first), not by their number: one stack of 5,000 weighs what 5,000 of one do.
"""

from __future__ import annotations

from collections.abc import Callable

from thermik.orchestration.kept import Kept
from thermik.persistence.values import Stack
from thermik.template.definitions import StackDefinition

#: How many resources the kept definitions may hold in all.
CACHE_RESOURCES = 20_000


class StoredDefinitions:
    """The definition of each stack's current template, built once by ``build``."""

    def __init__(
        self, build: Callable[[Stack], StackDefinition], resources: int = CACHE_RESOURCES
    ) -> None:
        self._build = build
        self._kept: Kept[tuple[str, int], StackDefinition] = Kept(resources, _weight)

    def __len__(self) -> int:
        """How many definitions are kept."""
        return len(self._kept)

    def of(self, stack: Stack) -> StackDefinition:
        """The definition of the stack's current template.

        Raises:
            NotFound: the template is gone (the stack is being purged); nothing is kept.
        """
        return self._kept.get((stack.id, stack.raw_template_id), lambda: self._build(stack))


def _weight(definition: StackDefinition) -> int:
    return max(1, len(definition.resources))
