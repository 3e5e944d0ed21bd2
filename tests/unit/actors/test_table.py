"""Actor tables: actors start on demand, and retire only with an empty inbox."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pykka
import pytest

from thermik.actors.table import ActorTable, PooledActor
from thermik.actors.threads import JobThreads


class Echo(PooledActor):
    """Answers asks with what it got; retires when told to."""

    def __init__(self, threads: JobThreads, table: Any, key: str):
        super().__init__(threads)
        self.table = table
        self.key = key

    def on_receive(self, message: Any) -> Any:
        if message == "retire":
            return self.table.retire(self.key, self)
        if message == "retire when mail is waiting":
            deadline = time.monotonic() + 5
            while self.actor_inbox.empty() and time.monotonic() < deadline:
                time.sleep(0.001)
            return self.table.retire(self.key, self)
        return (self.key, message, threading.current_thread().name)


class Tables:
    """Makes the tables of a test and stops their actors afterwards (pooled actors are not in
    pykka's registry: their table is the only index)."""

    def __init__(self) -> None:
        self.threads = JobThreads(8, "pooled")
        self.made: list[ActorTable[str]] = []

    def make(self) -> ActorTable[str]:
        table: ActorTable[str] = ActorTable(lambda key: Echo.start(self.threads, table, key))
        self.made.append(table)
        return table

    def stop(self) -> None:
        for table in self.made:
            for actor in table.close():
                actor.stop(timeout=5)
        self.threads.shutdown()


@pytest.fixture
def tables() -> Iterator[Tables]:
    made = Tables()
    yield made
    made.stop()


def test_actors_start_on_demand_on_pooled_threads(tables: Tables) -> None:
    started: list[str] = []
    table: ActorTable[str] = ActorTable(
        lambda key: (started.append(key), Echo.start(tables.threads, table, key))[1]
    )
    tables.made.append(table)
    assert table.tell_existing("a", "lost") is False
    key, message, thread = table.ask("a", "hi").get(timeout=5)
    assert (key, message) == ("a", "hi")
    assert thread.startswith("pooled")
    table.ask("a", "again").get(timeout=5)
    assert started == ["a"]
    assert "a" in table
    assert table.live() == ["a"]


def test_an_idle_actor_retires_and_a_new_one_starts_later(tables: Tables) -> None:
    table = tables.make()
    assert table.ask("a", "retire").get(timeout=5) is True
    assert "a" not in table
    assert table.ask("a", "hi").get(timeout=5)[1] == "hi"


def test_an_actor_with_mail_waiting_does_not_retire(tables: Tables) -> None:
    table = tables.make()
    first = table.ask("a", "retire when mail is waiting")
    second = table.ask("a", "still here")
    assert first.get(timeout=5) is False
    assert second.get(timeout=5)[1] == "still here"
    assert "a" in table


def test_a_closed_table_starts_nothing(tables: Tables) -> None:
    table = tables.make()
    table.tell("a", "hi")
    live = table.close()
    assert len(live) == 1
    live[0].stop(timeout=5)
    assert len(table) == 0
    with pytest.raises(pykka.ActorDeadError):
        table.tell("b", "hi")
