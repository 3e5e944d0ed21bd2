"""A ``ResourceGroup``'s members handled in batches: Heat's ``batch_create`` and
``rolling_update`` arithmetic, as pure functions.

A batched action moves the child stack through a sequence of templates, one per batch. Each
batch is computed from the child's members as they are (not from a plan made up front), so an
action taken up again after a stop, or an update run again after a failure, carries on from
where the child stands:

- :func:`next_batch` (Heat's ``rolling_update.next_batch``): the group's size after the next
  batch and how many members get the new definition in it. With ``min_in_service`` the group
  may grow beyond its target for a while (extra members made with the new definition keep
  enough members in service while old ones are updated); the last batch removes them.
- :func:`batch_members`: the child's members for that batch (Heat's
  ``_assemble_for_rolling_update``): members whose name falls out of the batch's size go
  first, then, among the members to keep, the highest indices of the target are updated first;
  the extra members are updated last, and new members take the lowest free names.
- :func:`next_members`: the members of the next batch, or ``None`` when the child is where
  the group wants it.

A ``batch_create`` is a rolling update from an empty group with ``min_in_service`` 0: members
are created ``max_batch_size`` at a time, in index order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import Any

from thermik.resources.group_templates import member_names

Definition = Mapping[str, Any]
#: Member name -> definition, in the child template's order.
Members = Mapping[str, Definition]
#: The definition a member of a given name gets from the group's current properties.
Define = Callable[[str], Definition]


@dataclasses.dataclass(frozen=True, slots=True)
class BatchPolicy:
    """How a batched action goes (a validated ``rolling_update`` or ``batch_create`` entry)."""

    max_batch_size: int
    min_in_service: int = 0
    pause_time: float = 0.0

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> BatchPolicy:
        """The policy of a validated update-policy entry (defaults already filled)."""
        return cls(
            max_batch_size=int(entry["max_batch_size"]),
            min_in_service=int(entry.get("min_in_service") or 0),
            pause_time=float(entry.get("pause_time") or 0),
        )

    def as_state(self) -> dict[str, Any]:
        """The policy as JSON-serialisable progress state."""
        return dataclasses.asdict(self)

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> BatchPolicy:
        """The policy :meth:`as_state` recorded."""
        return cls(
            int(state["max_batch_size"]),
            int(state["min_in_service"]),
            float(state["pause_time"]),
        )


def needs_update(target: int, current: int, up_to_date: int) -> bool:
    """Whether another batch is needed: the group is not yet exactly ``target`` members, all
    with the new definition."""
    return not (up_to_date >= current == target)


def next_batch(target: int, current: int, up_to_date: int, policy: BatchPolicy) -> tuple[int, int]:
    """The group's size after the next batch, and how many members get the new definition in
    it (created or updated); ``up_to_date`` counts the target's members that have it already."""
    kept = min(policy.min_in_service, target, current)
    size = min(policy.max_batch_size, max(target - up_to_date, 0))
    return size + max(min(current, target - size), kept), size


def _priority(name: str, names: Sequence[str], target: int, capacity: int) -> int:
    """Where a member goes in the replacement order (lowest first)."""
    try:
        index = names.index(name)
    except ValueError:
        return 0  # out of the batch's size: removed first
    return target - index if index < target else capacity


def batch_members(
    current: Members, removed: Collection[str], target: int, batch: tuple[int, int], define: Define
) -> dict[str, Definition]:
    """The child's members once the batch ``(capacity, updates)`` is done.

    ``current`` holds the child's members as they are, ``removed`` the names removal
    policies took out (never kept, never reused), ``target`` the group's size.
    """
    capacity, updates = batch
    names = member_names(capacity, removed)
    valid = [(name, old) for name, old in current.items() if name not in removed]
    ordered = sorted(valid, key=lambda item: _priority(item[0], names, target, capacity))
    kept = ordered[max(len(ordered) - capacity, 0) :] if capacity else []
    replace = updates - (capacity - len(kept))
    fresh = (name for name in names if name not in current)
    members: dict[str, Definition] = {}
    for index in range(capacity):
        if index < len(kept):
            name, old = kept[index]
            new = define(name)
            if old != new and replace > 0:
                replace -= 1
                members[name] = new
            else:
                members[name] = old
        else:
            name = next(fresh)
            members[name] = define(name)
    return dict(sorted(members.items(), key=lambda item: _index(item[0])))


def _index(name: str) -> tuple[int, str]:
    return (int(name), "") if name.isdigit() else (-1, name)


def up_to_date(current: Members, removed: Collection[str], target: int, define: Define) -> int:
    """How many of the target's members (the first ``target`` free names) have the new
    definition already."""
    return sum(
        1
        for name in member_names(target, removed)
        if name in current and current[name] == define(name)
    )


def outdated(current: Members, removed: Collection[str], target: int, define: Define) -> bool:
    """Whether a member the group keeps has another definition than the group gives it (what
    a rolling update is for)."""
    return any(
        name in current and current[name] != define(name) for name in member_names(target, removed)
    )


def next_members(
    current: Members, removed: Collection[str], target: int, policy: BatchPolicy, define: Define
) -> dict[str, Definition] | None:
    """The child's members after the next batch; ``None`` when the child holds exactly the
    group's members, each with its definition.

    When Heat's arithmetic would make no change (members it does not count), the next batch
    is the group's final membership, so an action always ends.
    """
    final = {name: define(name) for name in member_names(target, removed)}
    valid = {name: old for name, old in current.items() if name not in removed}
    if dict(valid) == final and len(valid) == len(current):
        return None
    size, done = len(valid), up_to_date(current, removed, target, define)
    if needs_update(target, size, done):
        members = batch_members(
            current, removed, target, next_batch(target, size, done, policy), define
        )
        if members != dict(current):
            return members
    return final


def count_batches(
    current: Members, removed: Collection[str], target: int, policy: BatchPolicy, define: Define
) -> int:
    """How many batches a batched action from ``current`` takes, counted as Heat counts them
    (sizes only, each batch assumed to work) to check that the pauses fit in the timeout."""
    size = sum(1 for name in current if name not in removed)
    done = up_to_date(current, removed, target, define)
    count = 0
    while needs_update(target, size, done):
        new_size, new = next_batch(target, size, done, policy)
        if (new_size, new) == (size, 0):
            break  # no batch would change anything (next_members then ends the action)
        count += 1
        done += new - max(new_size - max(size, target), 0)
        size = new_size
    return count


def batches(
    current: Members, removed: Collection[str], target: int, policy: BatchPolicy, define: Define
) -> Iterator[dict[str, Definition]]:
    """Every batch's members from ``current`` on (each assumed to work), for tests and
    previews."""
    members = next_members(current, removed, target, policy, define)
    while members is not None:
        yield members
        members = next_members(members, removed, target, policy, define)
