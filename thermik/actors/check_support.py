"""Whether a stack CHECK can check everything: Heat says so in the stack's reason.

A resource whose plugin has no check is not checked (it records ``CHECK not supported for
<type>``); Heat then ends the stack's CHECK reason with ``. 'CHECK' not fully supported (see
resources)``. A nested stack's resource is as checkable as everything in its child stack.
"""

from __future__ import annotations

from collections import defaultdict

from thermik.actors.stored import current_versions
from thermik.errors import ThermikError
from thermik.persistence.resource_values import Resource
from thermik.persistence.store import Store
from thermik.persistence.values import Stack
from thermik.resources.nested_stack import NestedStackResource
from thermik.resources.registry import Registry


def fully_checkable(store: Store, registry: Registry, stack: Stack) -> bool:
    """Whether every resource of ``stack`` and of the stacks nested under it can be checked."""
    tree = _subtree(store.list_stack_tree(stack.root_id), stack.id)
    rows: dict[str, list[Resource]] = defaultdict(list)
    for row in store.list_resources_by_root(stack.root_id):
        if row.stack_id in tree:
            rows[row.stack_id].append(row)
    return all(
        _checkable(registry, row.resource_type)
        for stack_id, versions in rows.items()
        for row in current_versions(versions, tree[stack_id].raw_template_id).values()
    )


def _subtree(stacks: list[Stack], top: str) -> dict[str, Stack]:
    """``top`` and its descendants among ``stacks`` (listed shallowest first)."""
    found: dict[str, Stack] = {}
    for stack in stacks:
        if stack.id == top or stack.owner_id in found:
            found[stack.id] = stack
    return found


def _checkable(registry: Registry, type_name: str) -> bool:
    try:
        plugin = registry.get(type_name)
    except ThermikError:
        return True  # a template resource: its child stack is in the tree
    return issubclass(plugin, NestedStackResource) or plugin.checks()
