"""Service mode end to end: two engine-less thermik-api processes and three thermik-engine
processes on one PostgreSQL database and RabbitMQ.

Each request is sent to the API process that did NOT create the stack: an update, a cancel
with and without rollback and a delete are carried out by the engine driving the stack (before
RPC, half of them were refused with 409 "in another engine"). A kill -9 of an engine
mid-create: a request for its stack answers 503 while its lease holds, then its stacks finish
on the other engines. Heat's notifications of all this are consumed from the bus.
"""

from __future__ import annotations

import datetime
import threading
from collections.abc import Iterator
from typing import Any

import oslo_messaging
import pytest
from oslo_config import cfg

from tests.functional.rpc.cluster import KEY, Api, template, wait_until
from tests.functional.rpc.conftest import Cluster
from thermik.cmd.messaging import register_opts
from thermik.conf.settings import DatabaseSettings
from thermik.persistence.factory import open_store
from thermik.persistence.store import Store

pytestmark = pytest.mark.timeout(300)


class Collected:
    """Notifications received: (event type, payload), in order."""

    def __init__(self) -> None:
        self.received: list[tuple[str, dict[str, Any]]] = []
        self.lock = threading.Lock()

    def _keep(self, event_type: str, payload: dict[str, Any]) -> None:
        with self.lock:
            self.received.append((event_type, payload))

    def info(self, ctxt: Any, publisher_id: str, event_type: str, payload: Any, md: Any) -> None:
        self._keep(event_type, payload)

    def error(self, ctxt: Any, publisher_id: str, event_type: str, payload: Any, md: Any) -> None:
        self._keep(event_type, payload)

    def of(self, stack_id: str) -> list[str]:
        """The event types received for one stack."""
        with self.lock:
            return [t for t, p in self.received if p["stack_identity"].endswith("/" + stack_id)]


@pytest.fixture(scope="module")
def notifications(cluster: Cluster) -> Iterator[Collected]:
    """A listener on the cluster's notification topic."""
    conf = cfg.ConfigOpts()
    register_opts(conf)
    conf([])
    transport = oslo_messaging.get_notification_transport(conf, url=cluster.transport)
    collected = Collected()
    listener = oslo_messaging.get_notification_listener(
        transport,
        [oslo_messaging.Target(topic=cluster.notify_topic)],
        [collected],
        executor="threading",
    )
    listener.start()
    try:
        yield collected
    finally:
        listener.stop()
        listener.wait()
        transport.cleanup()


@pytest.fixture(scope="module")
def store(postgresql: str) -> Iterator[Store]:
    """The cluster's database, to see the leases."""
    opened = open_store(DatabaseSettings(postgresql), KEY)
    try:
        yield opened
    finally:
        opened.close()


def create(api: Api, name: str, **waits: float) -> str:
    """Create a stack through ``api``; its id."""
    body = {"stack_name": name, "template": template(**waits), "disable_rollback": True}
    status, answer = api.request("POST", "/stacks", body)
    assert status == 201, answer
    return str(answer["stack"]["id"])


def state(api: Api, name: str, stack_id: str) -> str:
    """The stack's ``ACTION_STATUS`` as ``api`` shows it."""
    status, answer = api.request("GET", f"/stacks/{name}/{stack_id}")
    assert status == 200, answer
    return str(answer["stack"]["stack_status"])


def settles(api: Api, name: str, stack_id: str, timeout: float = 90) -> str:
    """The state the stack settles in."""
    return str(
        wait_until(
            lambda: (s := state(api, name, stack_id)).endswith(("COMPLETE", "FAILED")) and s,
            timeout,
            f"stack {name} to settle",
        )
    )


def action(api: Api, name: str, stack_id: str, verb: str) -> tuple[int, Any]:
    return api.request("POST", f"/stacks/{name}/{stack_id}/actions", {verb: None})


def holder(store: Store, stack_id: str) -> str:
    """The engine whose lease drives the stack (waits for one)."""
    lease = wait_until(lambda: store.get_lease(stack_id), 30, "a lease")
    return str(lease.engine_id)


def test_any_api_process_reaches_the_driving_engine(
    cluster: Cluster, notifications: Collected, store: Store
) -> None:
    first, second = cluster.apis
    # A create cancelled without rollback through the other API process.
    slow = create(first, "slow", create_secs=60)
    assert wait_until(lambda: store.get_lease(slow), 30, "a lease")
    status, answer = action(second, "slow", slow, "cancel_without_rollback")
    assert status == 200, answer
    assert settles(first, "slow", slow, timeout=60) == "CREATE_FAILED"

    # An update through the other API process is carried out.
    quick = create(first, "quick")
    assert settles(second, "quick", quick) == "CREATE_COMPLETE"
    status, answer = second.request(
        "PUT", f"/stacks/quick/{quick}", {"template": template(value="v2")}
    )
    assert status == 202, answer
    assert settles(first, "quick", quick) == "UPDATE_COMPLETE"
    status, answer = first.request("GET", f"/stacks/quick/{quick}/resources/first")
    assert answer["resource"]["attributes"]["output"] == "v2"

    # A long update cancelled with rollback through the API process that did not start it.
    status, answer = first.request(
        "PUT", f"/stacks/quick/{quick}", {"template": template(update_secs=60, value="v3")}
    )
    assert status == 202, answer
    wait_until(lambda: state(second, "quick", quick) == "UPDATE_IN_PROGRESS", 30, "the update")
    assert wait_until(lambda: store.get_lease(quick), 30, "a lease")
    status, answer = action(second, "quick", quick, "cancel_update")
    assert status == 200, answer
    assert settles(first, "quick", quick) == "ROLLBACK_COMPLETE"

    # Deletes through either API process.
    for api, name, stack_id in ((second, "quick", quick), (first, "slow", slow)):
        status, answer = api.request("DELETE", f"/stacks/{name}/{stack_id}")
        assert status == 204, answer
        assert settles(api, name, stack_id) == "DELETE_COMPLETE"

    expected = [
        "orchestration.stack.create.start",
        "orchestration.stack.create.end",
        "orchestration.stack.update.start",
        "orchestration.stack.update.end",
        "orchestration.stack.update.start",
        "orchestration.stack.rollback.start",
        "orchestration.stack.rollback.end",
        "orchestration.stack.delete.start",
        "orchestration.stack.delete.end",
    ]
    wait_until(lambda: notifications.of(quick)[-1:] == expected[-1:], 30, "notifications")
    assert notifications.of(quick) == expected
    wait_until(lambda: "orchestration.stack.delete.end" in notifications.of(slow), 30, "ends")
    slow_events = notifications.of(slow)
    assert slow_events[:2] == [
        "orchestration.stack.create.start",
        "orchestration.stack.create.error",
    ]
    with notifications.lock:
        body = next(p for t, p in notifications.received if t.endswith("create.end"))
    assert body["stack_name"] == "quick"
    assert body["tenant_id"] == "rpc-tenant"
    assert body["state"] == "CREATE_COMPLETE"
    datetime.datetime.fromisoformat(body["create_at"])


WAITING = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "handle": {"type": "OS::Heat::WaitConditionHandle"},
        "wait": {
            "type": "OS::Heat::WaitCondition",
            "properties": {"handle": {"get_resource": "handle"}, "timeout": 120},
        },
    },
}


def test_a_signal_through_either_api_process_reaches_the_waiting_stack(
    cluster: Cluster, store: Store
) -> None:
    first, second = cluster.apis
    status, answer = first.request("POST", "/stacks", {"stack_name": "waits", "template": WAITING})
    assert status == 201, answer
    stack_id = answer["stack"]["id"]
    assert wait_until(lambda: store.get_lease(stack_id), 30, "a lease")
    wait_until(
        lambda: (
            second.request("GET", f"/stacks/waits/{stack_id}/resources/wait")[1]["resource"][
                "resource_status"
            ]
            == "CREATE_IN_PROGRESS"
        ),
        30,
        "the wait condition to wait",
    )
    signal = {"status": "SUCCESS", "id": "1", "data": "done"}
    status, answer = second.request(
        "POST", f"/stacks/waits/{stack_id}/resources/handle/signal", signal
    )
    assert status == 200, answer
    assert settles(first, "waits", stack_id) == "CREATE_COMPLETE"


def test_a_dead_engines_stacks_finish_on_the_others(cluster: Cluster, store: Store) -> None:
    first, second = cluster.apis
    names = [f"crash{i}" for i in range(6)]
    ids = {
        name: create((first, second)[i % 2], name, create_secs=4) for i, name in enumerate(names)
    }
    holders = {name: holder(store, stack_id) for name, stack_id in ids.items()}
    victim_id = holders[names[0]]
    victim = cluster.engine(victim_id)
    victim.kill()
    doomed = [name for name, engine_id in holders.items() if engine_id == victim_id]

    # While the dead engine's lease holds, a request for its stack answers 503, clearly.
    name = doomed[0]
    status, answer = action(second, name, ids[name], "cancel_without_rollback")
    if status != 503:
        pytest.fail(f"expected 503 from a dead engine's stack, got {status}: {answer}")
    assert "did not answer" in answer["error"]["message"], answer
    assert victim_id in answer["error"]["message"]

    for name, stack_id in ids.items():
        assert settles(first, name, stack_id, timeout=120) == "CREATE_COMPLETE", name
    for name in doomed:
        lease = store.get_lease(ids[name])
        assert lease is None or lease.engine_id != victim_id
    cluster.engines.remove(victim)
    victim.close()
