"""Environment event sinks and ZAQAR_SIGNAL wait condition handles, in service mode, on the
real Zaqar behind the loopback cloud's Keystone (the ``messaging`` service of its catalog).

thermik-api runs with Keystone (a trustee and a stack user domain of the test's own) and the
builtin delivery backend: neither feature depends on it. The demo user's stack with
``event_sinks`` gets each of its events posted, in order and in Heat's shape, to the queue of
the demo user's project the environment names, through the stack's trust; a sink Zaqar
refuses is logged and fails nothing. A ZAQAR_SIGNAL handle hands out its stack user's
credentials and queue; the test logs in as that user, posts a signal to the queue, and the
wait condition completes with its data; the delete takes the queue and the user away.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3
from openstack.connection import Connection

from tests.e2e.api_process import ApiProcess
from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.test_server_agent_transports import Demo
from tests.functional.cloud.test_service_trusts import service_config, until
from tests.functional.cloud.test_wait_handle_service import (  # noqa: F401 (fixtures)
    admin,
    domain,
    trustee,
    with_stack_domain,
)
from tests.functional.cloud.test_zaqar_types import demo  # noqa: F401 (a fixture)
from thermik.clients.messaging import delete_queue, queue_messages
from thermik.conf.settings import StackDomainSettings, TrusteeSettings

pytestmark = [
    pytest.mark.functional,
    pytest.mark.filterwarnings("ignore:'cgi' is deprecated:DeprecationWarning"),
]

RESOURCES = {
    "heat_template_version": "2013-05-23",
    "resources": {
        "first": {"type": "OS::Heat::TestResource", "properties": {"value": "one"}},
        "second": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": "two"},
            "depends_on": ["first"],
        },
    },
}
WAIT_TEMPLATE = {
    "heat_template_version": "2013-05-23",
    "resources": {
        "wait_condition": {
            "type": "OS::Heat::WaitCondition",
            "properties": {"handle": {"get_resource": "wait_handle"}, "timeout": 120},
        },
        "wait_handle": {
            "type": "OS::Heat::WaitConditionHandle",
            "properties": {"signal_transport": "ZAQAR_SIGNAL"},
        },
    },
    "outputs": {"data": {"value": {"get_attr": ["wait_condition", "data"]}}},
}


@pytest.fixture
def service(
    tmp_path: Path,
    cloud_env: CloudEnv,
    trustee: TrusteeSettings,  # noqa: F811
    domain: StackDomainSettings,  # noqa: F811
    demo: Connection,  # noqa: F811 - the catalog has messaging
) -> Iterator[tuple[ApiProcess, Demo]]:
    api = ApiProcess(with_stack_domain(service_config(tmp_path, cloud_env, trustee), domain))
    try:
        yield api, Demo(api, cloud_env)
    finally:
        api.close()


def create(user: Demo, template: dict[str, Any], environment: dict[str, Any]) -> str:
    name = f"zs-{uuid.uuid4().hex[:8]}"
    answer = user.call(
        "POST", json={"stack_name": name, "template": template, "environment": environment}
    )
    assert answer.status_code == 201, answer.text
    return f"/{name}/{answer.json()['stack']['id']}"


def test_a_stacks_events_reach_its_sink_queue_in_order_and_a_refused_sink_fails_nothing(
    service: tuple[ApiProcess, Demo],
    demo: Connection,  # noqa: F811
) -> None:
    api, user = service
    queue = f"sink-{uuid.uuid4().hex[:12]}"
    sinks = [
        {"type": "zaqar-queue", "target": "not a queue name!"},
        {"type": "zaqar-queue", "target": queue, "ttl": 300},
    ]
    path = create(user, RESOURCES, {"event_sinks": sinks})
    try:
        view = user.settled(path, "CREATE")
        assert view["stack_status"] == "CREATE_COMPLETE", view["stack_status_reason"]
        stack_name, stack_id = path.strip("/").split("/")

        def six() -> list[dict[str, Any]] | None:
            found = queue_messages(demo, queue)
            return found if len(found) >= 6 else None

        messages = until(six, "six events in the sink's queue")
        bodies = [m["body"] for m in messages]
        assert {b["type"] for b in bodies} == {"os.heat.event"}
        assert {m["ttl"] for m in messages} == {300}
        order = [(b["payload"]["resource_name"], b["payload"]["resource_status"]) for b in bodies]
        assert order == [
            (stack_name, "IN_PROGRESS"),
            ("first", "IN_PROGRESS"),
            ("first", "COMPLETE"),
            ("second", "IN_PROGRESS"),
            ("second", "COMPLETE"),
            (stack_name, "COMPLETE"),
        ]
        assert {b["payload"]["stack_id"] for b in bodies} == {stack_id}
        events = user.call("GET", f"{path}/events").json()["events"]
        assert [b["id"] for b in bodies] == [e["id"] for e in events]
        assert "not posted to event sink zaqar-queue not a queue name!" in api.rest_of_log()
    finally:
        user.delete(path)
        delete_queue(demo, queue)


def stack_user_zaqar(signal: dict[str, str]) -> tuple[requests.Session, str]:
    """A session logged in as the handle's stack user, and its Zaqar queue's URL."""
    auth = v3.Password(
        auth_url=signal["auth_url"],
        user_id=signal["user_id"],
        password=signal["password"],
        project_id=signal["project_id"],
    )
    session = ks_session.Session(auth=auth)
    endpoint = session.get_endpoint(service_type="messaging", interface="public")
    assert endpoint, "the stack user's catalog has no messaging service"
    http = requests.Session()
    http.headers.update(
        {
            "X-Auth-Token": str(session.get_token()),
            "Client-ID": str(uuid.uuid4()),
            "X-Project-ID": signal["project_id"],
        }
    )
    return http, f"{endpoint.rstrip('/')}/v2/queues/{signal['queue_id']}"


def test_a_zaqar_signal_handle_is_signalled_through_its_stack_users_queue(
    service: tuple[ApiProcess, Demo],
    admin: Connection,  # noqa: F811
) -> None:
    _, user = service
    path = create(user, WAIT_TEMPLATE, {})
    try:
        user.physical_id(path, "wait_handle")
        shown = user.call("GET", f"{path}/resources/wait_handle?with_attr=signal").json()
        signal = json.loads(shown["resource"]["attributes"]["signal"])
        assert set(signal) >= {"auth_url", "user_id", "password", "project_id", "queue_id"}
        http, queue = stack_user_zaqar(signal)
        time.sleep(2.5)  # the wait condition has read the empty queue at least once
        assert user.stack(path)["stack_status"] == "CREATE_IN_PROGRESS"
        posted = http.post(
            f"{queue}/messages",
            json={"messages": [{"body": {"data": "here!", "id": "data_id"}, "ttl": 600}]},
            timeout=30,
        )
        assert posted.status_code == 201, posted.text
        view = user.settled(path, "CREATE")
        assert view["stack_status"] == "CREATE_COMPLETE", view["stack_status_reason"]
        [output] = view["outputs"]
        assert json.loads(output["output_value"]) == {"data_id": "here!"}
        # The data outlives the messages: it is the wait condition's own.
        assert http.delete(queue, timeout=30).status_code == 204
        assert json.loads(user.stack(path)["outputs"][0]["output_value"]) == {"data_id": "here!"}
        user.delete(path)
        until(lambda: admin.identity.find_user(signal["user_id"]) is None, "its user to go")
    finally:
        user.delete(path)
