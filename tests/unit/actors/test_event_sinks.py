"""Environment event sinks: which sinks a stack has, Heat's message, and the poster's order.

The store is real (SQLite); the cloud is a connection whose messaging proxy keeps what it is
asked to post, and jobs run when the test says, so the test sees what the writer's thread
does (only queue) and what the executor's job does (post, in order).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any, cast

import pytest
import requests
from openstack.connection import Connection

from thermik.actors.event_sinks import (
    BATCH,
    DEFAULT_TTL,
    EventSinks,
    ZaqarSink,
    event_message,
    sinks_of,
)
from thermik.actors.stack_changes import STACK_TYPE
from thermik.clients.calls import CloudClient
from thermik.clients.rounds import PollRounds
from thermik.errors import CloudFault
from thermik.persistence.resource_values import NO_CHANGES, Event, NewEvent, NewResource
from thermik.persistence.store import Store
from thermik.persistence.values import NewStack, Stack


def test_sinks_of_reads_zaqar_queues_with_heats_default_ttl() -> None:
    environment = {
        "event_sinks": [
            {"type": "zaqar-queue", "target": "q1", "ttl": 120},
            {"type": "zaqar-queue", "target": "q2"},
            {"type": "zaqar-queue"},
        ]
    }
    assert sinks_of(environment) == (ZaqarSink("q1", 120), ZaqarSink("q2", DEFAULT_TTL))
    assert sinks_of({}) == ()
    assert sinks_of(None) == ()


def test_event_message_has_heats_shape() -> None:
    at = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
    event = Event(
        "e1", "s1", "server", "CREATE", "COMPLETE", "done", "OS::Nova::Server", "p1", None, at
    )
    assert event_message(event) == {
        "timestamp": "2026-01-02T03:04:05+00:00",
        "version": "0.1",
        "type": "os.heat.event",
        "id": "e1",
        "payload": {
            "resource_name": "server",
            "physical_resource_id": "p1",
            "stack_id": "s1",
            "resource_action": "CREATE",
            "resource_status": "COMPLETE",
            "resource_status_reason": "done",
            "resource_type": "OS::Nova::Server",
            "resource_properties": {},
            "version": "0.1",
        },
    }


class Messaging:
    """Zaqar's messaging proxy as the sinks use it: keeps each POST, or refuses them all."""

    def __init__(self) -> None:
        self.posted: list[tuple[str, list[dict[str, Any]]]] = []
        self.refuse = False

    def post(self, path: str, *, json: Mapping[str, Any], headers: Mapping[str, str]) -> Any:
        if self.refuse:
            raise CloudFault("Zaqar is down")
        self.posted.append((path, list(json["messages"])))
        answer = requests.Response()
        answer.status_code = 201
        return answer


class Cloud:
    """A cloud access provider whose every access reaches :class:`Messaging`."""

    def __init__(self) -> None:
        self.messaging = Messaging()
        self.traversals: list[tuple[str, str]] = []

    def for_traversal(self, root_id: str, traversal_id: str) -> Cloud:
        self.traversals.append((root_id, traversal_id))
        return self

    def client(self, service: str) -> CloudClient:
        conn = cast("Connection", SimpleNamespace(message=self.messaging))
        return CloudClient(conn, "messaging", retry_limit=0)

    def find(self, kind: str, value: str) -> str:
        raise AssertionError("sinks look nothing up")

    def rounds(self, kind: str) -> PollRounds:
        raise AssertionError("sinks wait on nothing")


class Jobs:
    """The executor, run by the test."""

    def __init__(self) -> None:
        self.queued: list[Callable[[], object]] = []

    def submit(self, job: Callable[[], object]) -> None:
        self.queued.append(job)

    def run(self) -> int:
        ran = 0
        while self.queued:
            self.queued.pop(0)()
            ran += 1
        return ran


def make_stack(store: Store, environment: Mapping[str, Any]) -> Stack:
    template_id = store.store_raw_template(
        {"heat_template_version": "2013-05-23"}, environment, {}
    )
    return store.create_stack(NewStack("s", "tenant", template_id))


def event(stack: Stack, name: str, status: str, kind: str = "OS::Heat::TestResource") -> NewEvent:
    return NewEvent(stack.id, name, "CREATE", status, resource_type=kind)


@pytest.fixture
def cloud() -> Cloud:
    return Cloud()


@pytest.fixture
def jobs() -> Jobs:
    return Jobs()


@pytest.fixture
def watched(store: Store, cloud: Cloud, jobs: Jobs) -> Store:
    store.watch_events(EventSinks(store, cloud, jobs.submit).observe)
    return store


def sent(cloud: Cloud) -> list[tuple[str, str, int]]:
    return [
        (
            path,
            m["body"]["payload"]["resource_name"] + ":" + m["body"]["payload"]["resource_status"],
            m["ttl"],
        )
        for path, messages in cloud.messaging.posted
        for m in messages
    ]


def test_a_stacks_events_are_posted_in_order_by_one_job(
    watched: Store, cloud: Cloud, jobs: Jobs
) -> None:
    stack = make_stack(
        watched, {"event_sinks": [{"type": "zaqar-queue", "target": "q", "ttl": 9}]}
    )
    watched.append_event(event(stack, "s", "IN_PROGRESS", STACK_TYPE))
    for number in range(BATCH + 2):
        watched.append_event(event(stack, f"r{number}", "IN_PROGRESS"))
    assert not cloud.messaging.posted  # the writer only queued them
    assert jobs.run() == 1
    names = ["s:IN_PROGRESS"] + [f"r{n}:IN_PROGRESS" for n in range(BATCH + 2)]
    assert [name for _, name, _ in sent(cloud)] == names
    assert {(path, ttl) for path, _, ttl in sent(cloud)} == {("queues/q/messages", 9)}
    assert [len(messages) for _, messages in cloud.messaging.posted] == [BATCH, 3]
    assert cloud.traversals[0] == (stack.root_id, stack.current_traversal)


def test_every_sink_gets_every_event(watched: Store, cloud: Cloud, jobs: Jobs) -> None:
    sinks = [{"type": "zaqar-queue", "target": "a"}, {"type": "zaqar-queue", "target": "b"}]
    stack = make_stack(watched, {"event_sinks": sinks})
    watched.append_event(event(stack, "r", "COMPLETE"))
    jobs.run()
    assert sent(cloud) == [
        ("queues/a/messages", "r:COMPLETE", DEFAULT_TTL),
        ("queues/b/messages", "r:COMPLETE", DEFAULT_TTL),
    ]


def test_a_failing_sink_is_logged_and_later_events_still_go(
    watched: Store, cloud: Cloud, jobs: Jobs, caplog: pytest.LogCaptureFixture
) -> None:
    stack = make_stack(watched, {"event_sinks": [{"type": "zaqar-queue", "target": "q"}]})
    cloud.messaging.refuse = True
    watched.append_event(event(stack, "r", "IN_PROGRESS"))
    jobs.run()
    assert "not posted to event sink zaqar-queue q: Zaqar is down" in caplog.text
    cloud.messaging.refuse = False
    watched.append_event(event(stack, "r", "COMPLETE"))
    jobs.run()
    assert [name for _, name, _ in sent(cloud)] == ["r:COMPLETE"]


def test_a_stack_without_sinks_is_looked_at_once_per_traversal(
    watched: Store, cloud: Cloud, jobs: Jobs
) -> None:
    stack = make_stack(watched, {})
    watched.append_event(event(stack, "s", "IN_PROGRESS", STACK_TYPE))
    assert jobs.run() == 1
    watched.append_event(event(stack, "r", "IN_PROGRESS"))
    watched.append_event(event(stack, "s", "COMPLETE", STACK_TYPE))
    assert jobs.run() == 0
    # A new traversal may bring a new environment: the stack is looked at again.
    watched.append_event(event(stack, "s", "IN_PROGRESS", STACK_TYPE))
    assert jobs.run() == 1
    assert not cloud.messaging.posted


def test_without_a_cloud_the_sinks_are_logged(
    store: Store, jobs: Jobs, caplog: pytest.LogCaptureFixture
) -> None:
    store.watch_events(EventSinks(store, None, jobs.submit).observe)
    stack = make_stack(store, {"event_sinks": [{"type": "zaqar-queue", "target": "q"}]})
    store.append_event(event(stack, "r", "IN_PROGRESS"))
    jobs.run()
    assert "not posted to its event sinks: this engine has no cloud" in caplog.text


def test_resource_state_changes_are_watched_too(watched: Store, cloud: Cloud, jobs: Jobs) -> None:
    stack = make_stack(watched, {"event_sinks": [{"type": "zaqar-queue", "target": "q"}]})
    row = watched.create_resource(
        NewResource(stack.id, stack.id, "r", "OS::Heat::TestResource", stack.raw_template_id)
    )
    watched.update_resource(
        row.id, row.atomic_key, NO_CHANGES, event=event(stack, "r", "IN_PROGRESS")
    )
    jobs.run()
    assert [name for _, name, _ in sent(cloud)] == ["r:IN_PROGRESS"]
