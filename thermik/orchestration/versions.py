"""Which stored version of each resource is the one to show.

A resource may have several stored versions while it is being replaced. The version that
stands for a name now is the one a new traversal would choose (the runtime's own rule,
:func:`thermik.actors.stored.current_versions`), so the API shows what outputs resolve against.
"""

from __future__ import annotations

from thermik.actors.stored import current_versions
from thermik.persistence.resource_values import Resource
from thermik.persistence.store import Store
from thermik.persistence.values import Stack


def current_resources(store: Store, stack: Stack) -> dict[str, Resource]:
    """The current version of every resource of a stack, in creation order."""
    versions = current_versions(store.list_resources(stack.id), stack.raw_template_id)
    return dict(sorted(versions.items(), key=lambda item: item[1].id))
