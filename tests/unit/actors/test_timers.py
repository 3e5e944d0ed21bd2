"""The timer service: delayed callbacks in deadline order, cancellable, never raising."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pykka
import pytest

from thermik.actors.timers import TimerService


@pytest.fixture
def timers() -> Iterator[TimerService]:
    service = TimerService()
    yield service
    service.stop()
    pykka.ActorRegistry.stop_all()


def test_callbacks_run_in_deadline_order(timers: TimerService) -> None:
    fired: list[str] = []
    done = threading.Event()
    timers.call_later(0.06, lambda: (fired.append("late"), done.set()))
    timers.call_later(0.02, lambda: fired.append("early"))
    timers.call_later(-1, lambda: fired.append("now"))
    assert done.wait(5)
    assert fired == ["now", "early", "late"]


def test_a_cancelled_callback_never_runs(timers: TimerService) -> None:
    fired: list[str] = []
    done = threading.Event()
    handle = timers.call_later(0.01, lambda: fired.append("cancelled"))
    handle.cancel()
    timers.call_later(0.05, done.set)
    assert done.wait(5)
    assert fired == []


def test_a_failing_callback_does_not_stop_the_others(timers: TimerService) -> None:
    done = threading.Event()
    timers.call_later(0.0, lambda: 1 / 0)  # type: ignore[func-returns-value]
    timers.call_later(0.01, done.set)
    assert done.wait(5)


class Recorder(pykka.ThreadingActor):
    def __init__(self, got: list[object], done: threading.Event) -> None:
        super().__init__()
        self.got = got
        self.done = done

    def on_receive(self, message: object) -> None:
        self.got.append(message)
        self.done.set()


def test_messages_reach_live_actors_and_skip_dead_ones(timers: TimerService) -> None:
    got: list[object] = []
    done = threading.Event()
    actor = Recorder.start(got, done)
    dead = Recorder.start([], threading.Event())
    dead.stop()
    timers.tell_later(0.0, dead, "lost")
    timers.tell_later(0.01, actor, "hello")
    assert done.wait(5)
    assert got == ["hello"]


def test_stop_is_idempotent_and_drops_what_is_pending(timers: TimerService) -> None:
    fired: list[str] = []
    timers.call_later(10, lambda: fired.append("never"))
    timers.stop()
    timers.stop()
    assert fired == []
