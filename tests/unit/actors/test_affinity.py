"""Which CPUs the engine's threads run on."""

from __future__ import annotations

import os
import threading

import pytest

from thermik.actors.affinity import engine_cpus
from thermik.actors.threads import JobThreads
from thermik.actors.timers import TimerService
from thermik.errors import InvalidInput

ALLOWED = frozenset(os.sched_getaffinity(0))
WAIT = 5.0


def test_one_is_a_single_cpu_of_the_process_and_any_is_no_pinning() -> None:
    (cpu,) = engine_cpus("one") or ()
    assert cpu in ALLOWED
    assert engine_cpus(" any ") is None


def test_cpu_numbers_keep_those_the_process_may_use() -> None:
    last = max(ALLOWED)
    assert engine_cpus(f"{last}, 100000") == {last}


@pytest.mark.parametrize(
    ("setting", "message"),
    [("fast", "is not 'one', 'any' or a list of CPU numbers"), ("100000", "is available")],
)
def test_a_bad_setting_names_the_option(setting: str, message: str) -> None:
    with pytest.raises(InvalidInput, match=message) as raised:
        engine_cpus(setting)
    assert raised.value.path == ("engine", "cpu_affinity")


def test_pool_and_timer_threads_run_on_the_given_cpus() -> None:
    cpus = frozenset({max(ALLOWED)})
    seen: list[set[int]] = []
    done = threading.Event()
    pool = JobThreads(1, "pinned", cpus)
    pool.submit(lambda: (seen.append(os.sched_getaffinity(0)), done.set()))
    assert done.wait(WAIT)
    pool.shutdown()
    timers = TimerService(cpus)
    fired = threading.Event()
    timers.call_later(0, lambda: (seen.append(os.sched_getaffinity(0)), fired.set()))
    assert fired.wait(WAIT)
    timers.stop()
    assert seen == [cpus, cpus]
    assert os.sched_getaffinity(0) == ALLOWED  # the caller's own thread is left alone
