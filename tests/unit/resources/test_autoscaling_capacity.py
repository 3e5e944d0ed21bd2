"""Heat's scaling arithmetic: new capacities, rounding of percentages, bounds, cooldowns."""

from __future__ import annotations

import pytest

from thermik.resources.autoscaling.capacity import (
    Adjustment,
    Bounds,
    LastScaling,
    cooldown_end,
    decide,
    new_capacity,
)

WIDE = Bounds(0, 100)
UP_3 = Adjustment(3)


@pytest.mark.parametrize(
    ("current", "request_", "expected"),
    [
        (3, Adjustment(3), 6),
        (6, Adjustment(-4), 2),
        (6, Adjustment(2, "exact_capacity"), 2),
        (3, Adjustment(3, "ChangeInCapacity"), 6),
        (3, Adjustment(7, "ExactCapacity"), 7),
        # Percentages: below one member rounds away from zero, above towards zero.
        (3, Adjustment(10, "percent_change_in_capacity"), 4),
        (3, Adjustment(-10, "percent_change_in_capacity"), 2),
        (10, Adjustment(25, "percent_change_in_capacity"), 12),
        (10, Adjustment(-25, "percent_change_in_capacity"), 8),
        (10, Adjustment(100, "percent_change_in_capacity"), 20),
        (0, Adjustment(50, "percent_change_in_capacity"), 0),
        # min_adjustment_step raises a small percentage's step, either way.
        (10, Adjustment(10, "percent_change_in_capacity", 3), 13),
        (10, Adjustment(-10, "percent_change_in_capacity", 3), 7),
        (10, Adjustment(50, "percent_change_in_capacity", 3), 15),
        (4, Adjustment(10, "PercentChangeInCapacity", 2), 6),
    ],
)
def test_new_capacity(current: int, request_: Adjustment, expected: int) -> None:
    assert new_capacity(current, request_, WIDE) == expected


@pytest.mark.parametrize(
    ("current", "request_", "expected"),
    [
        (5, Adjustment(10), 6),
        (2, Adjustment(-5), 1),
        (3, Adjustment(0, "exact_capacity"), 1),
        (3, Adjustment(9, "exact_capacity"), 6),
        (4, Adjustment(200, "percent_change_in_capacity"), 6),
    ],
)
def test_new_capacity_stays_within_bounds(
    current: int, request_: Adjustment, expected: int
) -> None:
    assert new_capacity(current, request_, Bounds(1, 6)) == expected


def test_cooldown_counts_from_the_end_of_the_last_resize() -> None:
    assert cooldown_end(LastScaling(100.0, 60.0, ended_at=130.0)) == 190.0
    assert cooldown_end(LastScaling(100.0, 60.0)) == 160.0  # end not known: from the start
    assert cooldown_end(LastScaling(100.0, -5.0, ended_at=130.0)) == 130.0


def scale(
    current: int = 3,
    request_: Adjustment = UP_3,
    *,
    now: float = 1000.0,
    last: LastScaling | None = None,
    scaling: bool = False,
    group_cooldown: float = 0.0,
) -> tuple[int | None, str, float]:
    decision = decide(
        current,
        request_,
        Bounds(1, 10),
        group_cooldown=group_cooldown,
        now=now,
        last=last,
        scaling=scaling,
    )
    return decision.capacity, decision.reason, decision.cooldown


def test_a_signal_resizes_and_carries_the_cooldown_to_record() -> None:
    assert scale() == (6, "scaling from 3 to 6 members", 0.0)
    assert scale(group_cooldown=30) == (6, "scaling from 3 to 6 members", 30.0)
    # The policy's cooldown wins over the group's.
    assert scale(3, Adjustment(3, cooldown=5), group_cooldown=30)[2] == 5.0


def test_no_resize_while_scaling() -> None:
    assert scale(scaling=True) == (None, "no scaling: the group is already scaling", 0.0)


def test_no_resize_without_change() -> None:
    capacity, reason, _ = scale(10, Adjustment(1))
    assert (capacity, reason) == (None, "no scaling: the group stays at 10 members")


def test_cooldown_blocks_until_it_ends() -> None:
    last = LastScaling(900.0, 120.0, ended_at=950.0)
    assert scale(now=1069.0, last=last)[:2] == (None, "no scaling: in cooldown (120 s)")
    assert scale(now=1070.0, last=last)[0] == 6
    # A change that would do nothing says so, cooldown or not (Heat checks it first).
    assert scale(10, Adjustment(1), now=1000.0, last=last)[1].startswith("no scaling: the group")
