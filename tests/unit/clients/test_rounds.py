"""PollRounds: the waits of one traversal answered by one list call per round."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from thermik.clients.rounds import FORGET_AFTER, PollRounds, by_tag


class Clock:
    def __init__(self) -> None:
        self.time = 100.0

    def __call__(self) -> float:
        return self.time


class Cloud:
    """A listing that shows ``things`` (tag -> value) and records what it was asked."""

    def __init__(self, things: dict[str, Any]) -> None:
        self.things = things
        self.asked: list[list[str]] = []

    def __call__(self, tags: list[str]) -> Mapping[str, Any]:
        self.asked.append(tags)
        return {t: self.things[t] for t in tags if t in self.things}


def test_the_waits_of_one_round_cost_one_list_call() -> None:
    clock, cloud = Clock(), Cloud({"a": "A1", "b": "B1", "c": "C1"})
    rounds = PollRounds(cloud, clock=clock)
    rounds.get("a")
    rounds.get("b")
    rounds.get("c")
    clock.time += 1.0
    cloud.things = {"a": "A2", "b": "B2", "c": "C2"}
    assert [rounds.get(t) for t in "abc"] == ["A2", "B2", "C2"]
    assert cloud.asked[-1] == ["a", "b", "c"]
    assert len(cloud.asked) == 4  # a alone, then b joined (a and b), c (all), then one round


def test_a_thing_the_list_does_not_show_is_none_and_a_later_round_lists_again() -> None:
    clock, cloud = Clock(), Cloud({})
    rounds = PollRounds(cloud, clock=clock)
    assert rounds.get("a") is None
    cloud.things = {"a": "built"}
    assert rounds.get("a") == "built"  # not seen in the last round: asked again
    assert rounds.get("a") == "built"
    assert len(cloud.asked) == 2


def test_a_forgotten_or_long_unasked_thing_is_no_longer_listed() -> None:
    clock, cloud = Clock(), Cloud({"a": 1, "b": 2, "c": 3})
    rounds = PollRounds(cloud, clock=clock)
    rounds.get("a")
    rounds.get("b")
    rounds.forget("a")
    clock.time += FORGET_AFTER + 1
    rounds.get("c")
    assert cloud.asked[-1] == ["c"]


def test_a_failed_list_answers_none_so_that_each_fetches_its_own() -> None:
    def failing(tags: list[str]) -> Mapping[str, Any]:
        raise RuntimeError("down")

    assert PollRounds(failing, clock=Clock()).get("a") is None


def test_waits_end_on_the_shared_grid() -> None:
    clock = Clock()
    clock.time = 100.3
    rounds = PollRounds(Cloud({}), clock=clock, grid=1.0)
    assert abs(rounds.align(1.5) - 1.7) < 1e-9
    clock.time = 100.9
    assert abs(rounds.align(1.5) - 2.1) < 1e-9


def test_a_wait_during_a_running_list_that_covers_it_reads_that_list() -> None:
    clock, started, release = Clock(), threading.Event(), threading.Event()
    calls: list[list[str]] = []

    def slow(tags: list[str]) -> Mapping[str, Any]:
        calls.append(tags)
        started.set()
        release.wait(10)
        return {t: t.upper() for t in tags}

    rounds = PollRounds(slow, clock=clock)
    release.set()
    rounds.get("b")  # b waits already: the next round lists it
    release.clear()
    clock.time += 1.0
    got: dict[str, Any] = {}
    first = threading.Thread(target=lambda: got.__setitem__("a", rounds.get("a")))
    first.start()
    started.wait(10)
    second = threading.Thread(target=lambda: got.__setitem__("b", rounds.get("b")))
    second.start()
    release.set()
    first.join(10)
    second.join(10)
    assert got == {"a": "A", "b": "B"}
    assert calls == [["b"], ["a", "b"]]


def test_things_are_keyed_by_the_tag_they_carry() -> None:
    class Server:
        def __init__(self, *tags: str) -> None:
            self.tags = list(tags)

    one, two = Server("x", "thermik-1"), Server("thermik-2")
    assert by_tag([one, two, Server("other")], ["thermik-1", "thermik-2"]) == {
        "thermik-1": one,
        "thermik-2": two,
    }
