"""Processes run the same on a virtual clock as in real time."""

from __future__ import annotations

import pytest

from thermik.delivery.simulation import Delay, Process, Simulation, run_blocking
from thermik.errors import DeliveryUnavailable


def waits(delays: list[float], result: str) -> Process[str]:
    for d in delays:
        yield Delay(d)
    return result


def fails_after(delay: float) -> Process[str]:
    yield Delay(delay)
    raise DeliveryUnavailable("down")


def test_run_blocking_sleeps_for_every_delay_and_returns() -> None:
    slept: list[float] = []
    assert run_blocking(waits([0.5, 0.0, 1.5], "done"), slept.append) == "done"
    assert slept == [0.5, 1.5]


def test_simulation_interleaves_by_virtual_time() -> None:
    sim = Simulation(start=0.0)
    finished: list[tuple[str, float]] = []
    sim.spawn(waits([3.0], "slow"), lambda r: finished.append((r, sim.now)))
    sim.spawn(waits([1.0, 1.0], "fast"), lambda r: finished.append((r, sim.now)))
    sim.run()
    assert finished == [("fast", 2.0), ("slow", 3.0)]


def test_thermik_errors_go_to_on_error_and_others_escape() -> None:
    sim = Simulation(start=0.0)
    errors: list[str] = []
    sim.spawn(fails_after(1.0), lambda r: None, lambda e: errors.append(str(e)))
    sim.run()
    assert errors == ["down"]
    sim.spawn(fails_after(1.0), lambda r: None)
    with pytest.raises(DeliveryUnavailable):
        sim.run()


def test_run_until_stops_the_clock_there() -> None:
    sim = Simulation(start=0.0)
    done: list[str] = []
    sim.spawn(waits([5.0], "x"), done.append)
    sim.run(until=2.0)
    assert sim.now == 2.0
    assert done == []
    sim.run()
    assert done == ["x"]
