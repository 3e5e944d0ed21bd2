"""The child templates of the group types, built from their properties (pure functions).

``OS::Heat::ResourceGroup`` members are named ``"0"``, ``"1"``, ...: a group of ``count``
members holds the first ``count`` names that were never removed, so scaling up adds the next
free indices, scaling down drops the highest ones, and a name removed by a removal policy is
never used again. ``OS::Heat::ResourceChain`` members are named after their position in the
``resources`` list.

The child templates hold literal values only (the parent resolved every function in the
properties), in the HOT version Heat gives its generated group templates.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any

#: The HOT version of every generated child template (Heat's choice for group templates).
CHILD_TEMPLATE_VERSION = "2015-04-30"
DEFAULT_INDEX_VAR = "%index%"
APPEND, UPDATE = "append", "update"


def child_template(resources: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """A HOT document holding ``resources`` (name -> definition)."""
    return {
        "heat_template_version": CHILD_TEMPLATE_VERSION,
        "resources": {name: dict(definition) for name, definition in resources.items()},
    }


# -- ResourceGroup ------------------------------------------------------------------------------


def member_names(count: int, removed: Collection[str]) -> list[str]:
    """The names of a group of ``count`` members: the lowest indices never removed."""
    free = (name for name in map(str, itertools.count()) if name not in removed)
    return list(itertools.islice(free, max(count, 0)))


def substitute_index(value: Any, index_var: str, name: str) -> Any:
    """``value`` with ``index_var`` replaced by ``name`` in every string (keys are kept)."""
    if isinstance(value, str):
        return value.replace(index_var, name)
    if isinstance(value, Mapping):
        return {key: substitute_index(item, index_var, name) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [substitute_index(item, index_var, name) for item in value]
    return value


def member_definition(
    resource_def: Mapping[str, Any], name: str, index_var: str = DEFAULT_INDEX_VAR
) -> dict[str, Any]:
    """The definition of member ``name``.

    As in Heat, properties whose value is null are left out (so the member's defaults apply)
    and the index is substituted in property values only, not in the metadata.
    """
    out: dict[str, Any] = {"type": resource_def["type"]}
    raw = resource_def.get("properties") or {}
    properties = {key: value for key, value in raw.items() if value is not None}
    if properties:
        out["properties"] = substitute_index(properties, index_var, name)
    metadata = resource_def.get("metadata")
    if metadata is not None:
        out["metadata"] = metadata
    return out


def group_template(
    resource_def: Mapping[str, Any], names: Iterable[str], index_var: str = DEFAULT_INDEX_VAR
) -> dict[str, Any]:
    """The child template of a group whose members are ``names``."""
    return child_template(
        {name: member_definition(resource_def, name, index_var) for name in names}
    )


def removal_candidates(policies: Sequence[Mapping[str, Any]] | None) -> Iterator[Any]:
    """Every entry of every policy's ``resource_list``, in order."""
    for policy in policies or ():
        yield from policy.get("resource_list") or ()


def resolve_removals(
    policies: Sequence[Mapping[str, Any]] | None,
    *,
    known: Collection[str],
    created: bool,
    members: Collection[str] = (),
    refs: Mapping[str, Any] | None = None,
) -> set[str]:
    """The member names the removal policies name.

    An entry counts as a name when the group has no child stack yet, when it is already
    ``known`` as removed, or when a member has that name; otherwise a string entry is looked
    up among the members' reference ids (``refs``: name -> reference id). Entries matching
    nothing are ignored, as in Heat.
    """
    found: set[str] = set()
    for entry in removal_candidates(policies):
        text = str(entry)
        if not created or text in known or text in members:
            found.add(text)
        elif isinstance(entry, str):
            found.update(name for name, ref in (refs or {}).items() if ref == entry)
    return found


def updated_removals(
    policies: Sequence[Mapping[str, Any]] | None,
    mode: str,
    current: Collection[str],
    *,
    created: bool,
    members: Collection[str] = (),
    refs: Mapping[str, Any] | None = None,
) -> list[str]:
    """The removed names after applying ``policies`` (sorted, as Heat reports them).

    ``append`` adds to the names removed before; ``update`` replaces them.
    """
    start = set(current) if mode != UPDATE else set()
    new = resolve_removals(policies, known=current, created=created, members=members, refs=refs)
    return sorted(start | new)


# -- ResourceChain ------------------------------------------------------------------------------


def chain_names(types: Sequence[Any]) -> list[str]:
    """The names of a chain's members: their positions."""
    return [str(index) for index in range(len(types))]


def chain_template(
    types: Sequence[str], properties: Mapping[str, Any] | None, *, concurrent: bool
) -> dict[str, Any]:
    """The child template of a chain: one member per type, each given ``properties``.

    Unless ``concurrent``, each member depends on the previous one, so they are created in
    order (and deleted in reverse).
    """
    names = chain_names(types)
    resources: dict[str, dict[str, Any]] = {}
    for index, (name, type_name) in enumerate(zip(names, types, strict=True)):
        definition: dict[str, Any] = {"type": type_name}
        if properties is not None:
            definition["properties"] = dict(properties)
        if index > 0 and not concurrent:
            definition["depends_on"] = [names[index - 1]]
        resources[name] = definition
    return child_template(resources)
