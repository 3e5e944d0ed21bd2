"""The engine paces the cyclic collector: young collections rarer, older ratios unchanged."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from thermik.actors.collector import YOUNG_THRESHOLD, pace_collector


@pytest.fixture(autouse=True)
def restore_thresholds() -> Iterator[None]:
    saved = gc.get_threshold()
    yield
    gc.set_threshold(*saved)


def test_raises_the_young_threshold_and_keeps_the_older_ratios() -> None:
    gc.set_threshold(700, 10, 10)
    pace_collector()
    assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)


def test_never_lowers_a_higher_threshold_nor_enables_a_disabled_collector() -> None:
    gc.set_threshold(50_000, 5, 5)
    pace_collector()
    assert gc.get_threshold() == (50_000, 5, 5)
    gc.set_threshold(0, 10, 10)
    pace_collector()
    assert gc.get_threshold() == (0, 10, 10)
