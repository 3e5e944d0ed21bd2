"""The future-less thread pool of actor loops and plugin steps."""

from __future__ import annotations

import threading

import pytest

from thermik.actors.threads import JobThreads

WAIT = 5.0


def test_jobs_run_on_reused_threads_never_more_than_the_bound() -> None:
    pool = JobThreads(2, "reused")
    names: set[str] = set()
    for _ in range(20):
        done = threading.Event()
        pool.submit(lambda done=done: (names.add(threading.current_thread().name), done.set()))
        assert done.wait(WAIT)
    pool.shutdown()
    assert names <= {"reused_1", "reused_2"}


def test_more_jobs_than_threads_all_run_in_turn() -> None:
    pool = JobThreads(2, "few")
    release = threading.Event()
    finished = threading.Semaphore(0)

    def job() -> None:
        release.wait(WAIT)
        finished.release()

    for _ in range(6):
        pool.submit(job)
    release.set()
    assert all(finished.acquire(timeout=WAIT) for _ in range(6))
    pool.shutdown()


def test_a_failing_job_does_not_take_its_thread_down() -> None:
    pool = JobThreads(1, "failing")
    pool.submit(lambda: 1 / 0)
    done = threading.Event()
    pool.submit(done.set)
    assert done.wait(WAIT)
    pool.shutdown()


def test_no_job_is_taken_after_shutdown() -> None:
    pool = JobThreads(1, "closed")
    pool.shutdown()
    with pytest.raises(RuntimeError, match="after shutdown"):
        pool.submit(lambda: None)


def _named(prefix: str) -> set[str]:
    return {t.name for t in threading.enumerate() if t.name.startswith(f"{prefix}_")}


def test_threads_started_idle_take_the_first_jobs() -> None:
    pool = JobThreads(8, "ahead")
    pool.start_idle(3)
    assert _named("ahead") == {"ahead_1", "ahead_2", "ahead_3"}
    release = threading.Event()
    started = threading.Semaphore(0)

    def job() -> None:
        started.release()
        release.wait(WAIT)

    for _ in range(3):
        pool.submit(job)
    assert all(started.acquire(timeout=WAIT) for _ in range(3))
    # Three jobs at once ran on the three idle threads: none was started for them.
    assert _named("ahead") == {"ahead_1", "ahead_2", "ahead_3"}
    pool.submit(job)
    assert started.acquire(timeout=WAIT)
    assert "ahead_4" in _named("ahead")
    release.set()
    pool.shutdown()


def test_starting_idle_threads_respects_the_bound_and_what_is_idle() -> None:
    pool = JobThreads(2, "bounded")
    pool.start_idle(5)
    pool.start_idle(1)
    assert _named("bounded") == {"bounded_1", "bounded_2"}
    pool.shutdown()


def test_idle_threads_end_at_shutdown() -> None:
    pool = JobThreads(4, "ending")
    pool.start_idle(4)
    pool.shutdown()
    for thread in [t for t in threading.enumerate() if t.name.startswith("ending_")]:
        thread.join(WAIT)
    assert not _named("ending")
    pool.start_idle(2)
    assert not _named("ending")
