"""What a scaling adjustment does to a group: Heat's capacity and cooldown rules, pure.

- :func:`adjustment_of`: the :class:`Adjustment` a scaling signal's data asks for.
- :func:`new_capacity`: the group's size after an adjustment (``change_in_capacity``,
  ``exact_capacity`` or ``percent_change_in_capacity`` with ``min_adjustment_step``), kept
  within ``min_size`` .. ``max_size``. A percentage below one member rounds away from zero
  (so 10% of 3 still adds one), a larger one towards zero, as Heat rounds it.
- :func:`cooldown_end`: when the group may scale again after its last scaling: its cooldown
  counts from when that scaling *ended* (Heat's ``cooldown_end``), or from when it started
  while its end is not known.
- :func:`decide`: whether a scaling signal resizes the group now, and to what; a signal that
  changes nothing, arrives while a scaling runs or during the cooldown is skipped, with the
  reason Heat gives.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any, Final

from thermik.errors import InvalidSignal

EXACT_CAPACITY: Final = "exact_capacity"
CHANGE_IN_CAPACITY: Final = "change_in_capacity"
PERCENT_CHANGE_IN_CAPACITY: Final = "percent_change_in_capacity"
ADJUSTMENT_TYPES: Final = (CHANGE_IN_CAPACITY, EXACT_CAPACITY, PERCENT_CHANGE_IN_CAPACITY)
#: The CloudFormation spellings Heat also accepts in a signal to a group.
CFN_TYPES: Final = {
    "ChangeInCapacity": CHANGE_IN_CAPACITY,
    "ExactCapacity": EXACT_CAPACITY,
    "PercentChangeInCapacity": PERCENT_CHANGE_IN_CAPACITY,
}


@dataclasses.dataclass(frozen=True, slots=True)
class Adjustment:
    """One scaling request: what a policy (or a signal to the group) asks for."""

    adjustment: float
    adjustment_type: str = CHANGE_IN_CAPACITY
    min_adjustment_step: int | None = None
    #: Seconds before the next scaling; ``None``: the group's ``cooldown``.
    cooldown: float | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Bounds:
    """A group's ``min_size`` and ``max_size``."""

    min_size: int
    max_size: int


@dataclasses.dataclass(frozen=True, slots=True)
class LastScaling:
    """The group's latest resize (its create counts as one, as in Heat)."""

    started_at: float
    cooldown: float
    #: When the child stack's resize ended; ``None`` while it runs or when not known.
    ended_at: float | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Decision:
    """What a scaling signal does: resize to ``capacity``, or nothing (``capacity`` is
    ``None``) for ``reason``."""

    capacity: int | None
    reason: str
    #: The cooldown that starts when this resize ends (recorded with it).
    cooldown: float = 0.0


def adjustment_of(data: Mapping[str, Any] | None) -> Adjustment:
    """The adjustment a signal to the group asks for.

    Raises:
        InvalidSignal: the data is not an adjustment (the message names the field).
    """
    if not isinstance(data, Mapping):
        raise InvalidSignal("a scaling signal carries a map with an 'adjustment'")
    value = data.get("adjustment")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidSignal(f"a scaling signal's 'adjustment' must be a number, not {value!r}")
    kind = data.get("adjustment_type") or "change_in_capacity"
    kind = CFN_TYPES.get(kind, kind) if isinstance(kind, str) else kind
    if kind not in ADJUSTMENT_TYPES:
        raise InvalidSignal(
            f"a scaling signal's 'adjustment_type' must be one of {', '.join(ADJUSTMENT_TYPES)},"
            f" not {kind!r}"
        )
    step, cooldown = data.get("min_adjustment_step"), data.get("cooldown")
    for name, item in (("min_adjustment_step", step), ("cooldown", cooldown)):
        if item is not None and (isinstance(item, bool) or not isinstance(item, int | float)):
            raise InvalidSignal(f"a scaling signal's {name!r} must be a number, not {item!r}")
    return Adjustment(
        float(value),
        kind,
        None if step is None else int(step),
        None if cooldown is None else float(cooldown),
    )


def _rounded(delta: float) -> int:
    if abs(delta) < 1.0:
        return math.ceil(delta) if delta > 0 else math.floor(delta)
    return math.floor(delta) if delta > 0 else math.ceil(delta)


def new_capacity(current: int, request: Adjustment, bounds: Bounds) -> int:
    """The group's size after ``request``, within ``bounds``."""
    kind = CFN_TYPES.get(request.adjustment_type, request.adjustment_type)
    if kind == EXACT_CAPACITY:
        wanted = int(request.adjustment)
    elif kind == PERCENT_CHANGE_IN_CAPACITY:
        step = _rounded(current * request.adjustment / 100.0)
        minimum = request.min_adjustment_step or 0
        if minimum > abs(step):
            step = minimum if step > 0 else -minimum
        wanted = current + step
    else:
        wanted = current + int(request.adjustment)
    return max(bounds.min_size, min(bounds.max_size, wanted))


def cooldown_end(last: LastScaling) -> float:
    """When the cooldown after ``last`` ends (negative cooldowns count as none)."""
    start = last.ended_at if last.ended_at is not None else last.started_at
    return max(start, last.started_at) + max(last.cooldown, 0.0)


def decide(
    current: int,
    request: Adjustment,
    bounds: Bounds,
    *,
    group_cooldown: float,
    now: float,
    last: LastScaling | None,
    scaling: bool,
) -> Decision:
    """Whether (and to what) a scaling signal resizes a group of ``current`` members now.

    ``scaling`` says a resize (or any other operation on the members) is running. The
    cooldown that follows a resize is the request's when it has one, else
    ``group_cooldown``; Heat checks the change before the cooldown, so a signal that would
    change nothing says so.
    """
    if scaling:
        return Decision(None, "no scaling: the group is already scaling")
    capacity = new_capacity(current, request, bounds)
    if capacity == current:
        return Decision(None, f"no scaling: the group stays at {current} members")
    if last is not None and now < cooldown_end(last):
        return Decision(None, f"no scaling: in cooldown ({last.cooldown:g} s)")
    cooldown = request.cooldown if request.cooldown is not None else group_cooldown
    return Decision(capacity, f"scaling from {current} to {capacity} members", cooldown)
