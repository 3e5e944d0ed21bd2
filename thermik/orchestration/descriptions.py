"""The descriptions of stacks' templates, remembered for stack listings.

A listing shows every stack's template description, which lives in the stack's raw template:
reading one template per stack made a list of a thousand stacks cost a thousand queries. A
stored template row never changes (an update stores a new row), and the id of a deleted row is
only reused when no newer row exists, which a stack's own current row always is; so one
(stack id, template id) pair names one description for good and can be kept.
"""

from __future__ import annotations

from typing import Any

from thermik.errors import NotFound
from thermik.orchestration.kept import Kept
from thermik.persistence.store import Store
from thermik.persistence.values import Stack

#: How many descriptions are kept (the least recently used go first).
CACHE_SIZE = 8192


class TemplateDescriptions:
    """The description of each stack's current template, read once."""

    def __init__(self, store: Store, size: int = CACHE_SIZE) -> None:
        self._store = store
        self._known: Kept[tuple[str, int], Any] = Kept(size)

    def __len__(self) -> int:
        """How many descriptions are kept."""
        return len(self._known)

    def __contains__(self, stack: Stack) -> bool:
        """Whether the description of the stack's current template is kept."""
        return (stack.id, stack.raw_template_id) in self._known

    def of(self, stack: Stack) -> Any:
        """``description`` of the stack's template ("" when the template is gone)."""
        try:
            return self._known.get((stack.id, stack.raw_template_id), lambda: self._read(stack))
        except NotFound:
            # Being purged: nothing to remember.
            return ""

    def _read(self, stack: Stack) -> Any:
        template = self._store.get_raw_template(stack.raw_template_id).template
        return template.get("description", template.get("Description", ""))
