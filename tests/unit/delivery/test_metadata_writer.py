"""The writer's decisions, event by event, with no I/O and no threads."""

from __future__ import annotations

import random

import pytest

from thermik.delivery.base import PublishResult
from thermik.delivery.messages import MetadataDelivered, MetadataDeliveryFailed, Outcome
from thermik.delivery.metadata_writer import (
    Command,
    DeliveryPolicy,
    Emit,
    MetadataWriter,
    ReadGeneration,
    ReadServedGeneration,
    RunEffect,
    Snapshot,
    StartTimer,
    TakeSnapshot,
    WriteDocument,
)
from thermik.errors import DeliveryRejected, DeliveryUnavailable, Failure

UNAVAILABLE = Failure.from_exception(DeliveryUnavailable("connection refused"))


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Driver:
    """Plays the actor: remembers the one command in flight and answers it."""

    def __init__(self, policy: DeliveryPolicy | None = None) -> None:
        self.clock = Clock()
        self.writer = MetadataWriter("srv", policy, clock=self.clock, rng=random.Random(1))
        self.pending: Command | None = None
        self.reports: list[object] = []

    def take(self, commands: list[Command]) -> Command | None:
        self.pending = None
        for command in commands:
            if isinstance(command, Emit):
                self.reports.append(command.report)
            else:
                assert self.pending is None, "the writer runs one step at a time"
                self.pending = command
        return self.pending

    def changed(self) -> Command | None:
        return self.take(self.writer.changed())

    def effect(self) -> RunEffect:
        assert isinstance(self.pending, RunEffect), self.pending
        return self.pending

    def answer(self, value: object = None, failure: Failure | None = None) -> Command | None:
        token = self.effect().token
        return self.take(self.writer.effect_done(token, Outcome(value, failure)))

    def fire(self) -> Command | None:
        assert isinstance(self.pending, StartTimer), self.pending
        self.clock.now += self.pending.delay
        return self.take(self.writer.timer_fired(self.pending.token))

    def snapshot(self, generation: int) -> Command | None:
        assert self.effect().effect == TakeSnapshot(bump=True)
        return self.answer(Snapshot(generation, {"thermik-generation": generation}))

    def write_and_check(self, current: int, served: int) -> Command | None:
        assert isinstance(self.effect().effect, WriteDocument)
        self.answer(PublishResult(True, 201))
        assert self.effect().effect == ReadGeneration()
        self.answer(current)
        assert self.effect().effect == ReadServedGeneration()
        return self.answer(served)


def test_one_change_is_bumped_written_checked_and_reported() -> None:
    d = Driver()
    d.changed()
    d.snapshot(1)
    assert d.effect().effect == WriteDocument({"thermik-generation": 1})
    assert d.write_and_check(current=1, served=1) is None
    assert d.reports == [MetadataDelivered("srv", 1, writes=1)]
    assert d.writer.idle


def test_changes_during_a_delivery_are_coalesced_into_one_more_write() -> None:
    d = Driver()
    d.changed()
    d.snapshot(1)
    for _ in range(10):
        assert d.writer.changed() == []
        d.writer.changed()
    d.write_and_check(current=1, served=1)
    d.snapshot(2)
    d.write_and_check(current=2, served=2)
    assert d.reports == [MetadataDelivered("srv", 2, writes=2)]


def test_changes_during_the_snapshot_take_another_snapshot_before_writing() -> None:
    d = Driver()
    d.changed()
    d.writer.changed()
    d.snapshot(1)
    assert d.effect().effect == TakeSnapshot(bump=True)


def test_an_unserved_write_is_repeated_after_a_backoff() -> None:
    d = Driver()
    d.changed()
    d.snapshot(1)
    timer = d.write_and_check(current=1, served=0)
    assert isinstance(timer, StartTimer)
    assert 0.05 <= timer.delay <= 0.1
    d.fire()
    assert d.effect().effect == WriteDocument({"thermik-generation": 1})
    d.write_and_check(current=1, served=1)
    assert d.reports == [MetadataDelivered("srv", 1, writes=2)]


def test_when_another_engine_moved_on_the_current_document_is_written() -> None:
    d = Driver()
    d.changed()
    d.snapshot(1)
    d.write_and_check(current=3, served=1)
    assert d.effect().effect == TakeSnapshot(bump=False)
    d.answer(Snapshot(3, {"thermik-generation": 3}))
    d.fire()
    assert d.effect().effect == WriteDocument({"thermik-generation": 3})
    d.write_and_check(current=3, served=3)
    assert d.reports == [MetadataDelivered("srv", 3, writes=2)]


def test_a_newer_document_served_by_another_engine_completes_delivery() -> None:
    d = Driver()
    d.changed()
    d.snapshot(1)
    d.write_and_check(current=2, served=2)
    assert d.reports == [MetadataDelivered("srv", 2, writes=1)]


def test_failures_back_off_then_report_then_recover() -> None:
    d = Driver(DeliveryPolicy(max_attempts=3))
    d.changed()
    delays = []
    for _ in range(3):
        timer = d.answer(failure=UNAVAILABLE)
        assert isinstance(timer, StartTimer)
        delays.append(timer.delay)
        d.fire()
        assert d.effect().effect == TakeSnapshot(bump=True)
    assert delays == sorted(delays)
    [report] = d.reports
    assert isinstance(report, MetadataDeliveryFailed)
    assert str(report.failure) == (
        "DeliveryUnavailable: metadata delivery to server srv failed 3 time(s) in a row, "
        "still retrying: connection refused"
    )
    d.snapshot(1)
    d.write_and_check(current=1, served=1)
    assert d.reports[-1] == MetadataDelivered("srv", 1, writes=1, recovered=True)


def test_after_a_report_retries_slow_down_to_the_recovery_interval() -> None:
    d = Driver(DeliveryPolicy(max_attempts=1, recovery_interval=30.0))
    d.changed()
    delays = []
    for _ in range(12):
        timer = d.answer(failure=UNAVAILABLE)
        assert isinstance(timer, StartTimer)
        delays.append(timer.delay)
        d.fire()
    assert len(d.reports) == 1
    assert 15.0 <= delays[-1] <= 30.0


def test_a_rejected_request_is_reported_at_once() -> None:
    d = Driver()
    d.changed()
    d.answer(failure=Failure.from_exception(DeliveryRejected("401 Unauthorized")))
    [report] = d.reports
    assert isinstance(report, MetadataDeliveryFailed)
    assert "401 Unauthorized" in report.failure.message


def test_a_generation_that_stays_unserved_is_reported_stuck_and_never_delivered() -> None:
    d = Driver(DeliveryPolicy(stuck_after=30.0))
    d.changed()
    d.snapshot(1)
    for _ in range(60):
        d.write_and_check(current=1, served=0)
        d.fire()
    [report] = d.reports
    assert isinstance(report, MetadataDeliveryFailed)
    assert report.failure.type_name == "DeliveryStuck"
    assert "the agent is served generation 0, older than the latest 1" in report.failure.message
    assert not d.writer.idle


def test_stale_answers_are_ignored() -> None:
    d = Driver()
    d.changed()
    token = d.effect().token
    assert d.writer.effect_done(token + 7, Outcome(Snapshot(9, {}))) == []
    assert d.writer.timer_fired(token) == []
    assert d.effect().token == token


@pytest.mark.parametrize("attempt", [1, 2, 3, 10])
def test_backoff_is_jittered_within_tenacitys_curve(attempt: int) -> None:
    writer = MetadataWriter("s", clock=Clock(), rng=random.Random(attempt))
    ceiling = min(0.1 * 2 ** (attempt - 1), 1.0)
    assert ceiling / 2 <= writer._backoff(attempt, 1.0) <= ceiling
