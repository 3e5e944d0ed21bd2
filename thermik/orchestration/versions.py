"""Which stored version of each resource is the one to show.

A resource may have several stored versions while it is being replaced (the new version
``replaces`` the old one, which is ``replaced_by`` it until the old one is cleaned up). The
current version of a name is the newest one that nothing replaced, else the newest one.
"""

from __future__ import annotations

from thermik.persistence.resource_values import Resource
from thermik.persistence.store import Store


def current_versions(versions: list[Resource]) -> dict[str, Resource]:
    """The current version of each resource name among ``versions``, in first-seen order."""
    found: dict[str, Resource] = {}
    for version in versions:
        seen = found.get(version.name)
        if seen is None or _rank(version) > _rank(seen):
            found[version.name] = version
    return found


def _rank(version: Resource) -> tuple[bool, int]:
    return (version.replaced_by is None, version.id)


def current_resources(store: Store, stack_id: str) -> dict[str, Resource]:
    """The current version of every resource of a stack."""
    return current_versions(store.list_resources(stack_id))
