"""OS::Heat::SwiftSignal completes when curl PUTs to its SwiftSignalHandle's TempURL.

On the real Swift of the loopback cloud's catalog, as the demo user (tools/swift-keystone-up.sh):
the handle's ``curl_cli`` is ``curl -i -X PUT '<TempURL>'``; a shell runs it as a user_data
script would, twice, and the wait completes with both signals' data; a FAILURE fails the
stack with its reason; too few signals time out; deleting the stack leaves no object and no
container behind.
"""

from __future__ import annotations

import json
import subprocess
import time
import uuid
from typing import Any

import pytest
from openstack.connection import Connection
from openstack.exceptions import NotFoundException

from tests.functional.cloud.engine import CTX, CloudEngine
from tests.functional.cloud.test_swift_container import demo  # noqa: F401 (a fixture)
from thermik.api.boundary import StackIdentity
from thermik.clients.object_store import (
    delete_container,
    delete_object,
    head_container,
    object_names,
)

pytestmark = pytest.mark.functional

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  count: {type: number, default: 2}
  timeout: {type: number, default: 120}
resources:
  handle: {type: OS::Heat::SwiftSignalHandle}
  wait:
    type: OS::Heat::SwiftSignal
    properties:
      handle: {get_resource: handle}
      count: {get_param: count}
      timeout: {get_param: timeout}
outputs:
  data: {value: {get_attr: [wait, data]}}
"""


def curl_cli(engine: CloudEngine, stack: StackIdentity) -> str:
    deadline = time.monotonic() + 120
    while True:
        view = engine.service.show_resource(CTX, stack, "handle", with_attr=("curl_cli", "token"))
        found = (view.attributes or {}).get("curl_cli")
        if view.status == "COMPLETE" and found:
            assert (view.attributes or {}).get("token") == ""
            return str(found)
        assert view.status != "FAILED", view.status_reason
        assert time.monotonic() < deadline, "the handle is not made"
        time.sleep(0.5)


def run_curl(command: str, body: dict[str, Any]) -> str:
    line = f"{command} --data-binary '{json.dumps(body)}'"
    done = subprocess.run(
        ["sh", "-c", line], check=False, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def exists(conn: Connection, stack: StackIdentity) -> bool:
    """Whether the stack's signal container exists."""
    try:
        head_container(conn, stack.id)
    except NotFoundException:
        return False
    return True


def leftovers(conn: Connection, stack: StackIdentity) -> list[str]:
    """The stack's signal container's objects, if the container is still there."""
    if not exists(conn, stack):
        return []
    return object_names(conn, stack.id) or ["(the empty container)"]


def purge(conn: Connection, stack: StackIdentity) -> None:
    for left in leftovers(conn, stack):
        if not left.startswith("("):
            delete_object(conn, stack.id, left)
    if exists(conn, stack):
        delete_container(conn, stack.id)


def test_curl_puts_to_the_tempurl_complete_the_swift_signal_and_delete_leaves_nothing(
    cloud_engine: CloudEngine,
    demo: Connection,  # noqa: F811
) -> None:
    stack = cloud_engine.create(f"sws-{uuid.uuid4().hex[:8]}", TEMPLATE)
    try:
        command = curl_cli(cloud_engine, stack)
        assert command.startswith("curl -i -X PUT 'http")
        assert f"/{stack.id}/" in command
        answer = run_curl(command, {"status": "SUCCESS", "data": "one", "id": "a"})
        assert " 201 " in answer.splitlines()[0], answer
        run_curl(command, {"data": "two"})
        view = cloud_engine.wait(stack)
        assert (view.action, view.status) == ("CREATE", "COMPLETE"), view.status_reason
        assert json.loads(cloud_engine.outputs(stack)["data"]) == {"a": "one", "2": "two"}

        view = cloud_engine.delete(stack)
        assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
        assert leftovers(demo, stack) == []
    finally:
        purge(demo, stack)


def test_a_failure_put_fails_the_stack_and_too_few_signals_time_out(
    cloud_engine: CloudEngine,
    demo: Connection,  # noqa: F811
) -> None:
    failing = cloud_engine.create(f"sws-{uuid.uuid4().hex[:8]}", TEMPLATE)
    waiting = cloud_engine.create(f"sws-{uuid.uuid4().hex[:8]}", TEMPLATE, timeout=5)
    try:
        run_curl(curl_cli(cloud_engine, failing), {"status": "FAILURE", "reason": "no disk"})
        run_curl(curl_cli(cloud_engine, waiting), {"status": "SUCCESS"})
        view = cloud_engine.wait(failing)
        assert (view.action, view.status) == ("CREATE", "FAILED")
        assert "SwiftSignalFailure" in view.status_reason
        assert "no disk" in view.status_reason
        view = cloud_engine.wait(waiting)
        assert (view.action, view.status) == ("CREATE", "FAILED")
        assert "SwiftSignalTimeout" in view.status_reason
        assert "1 of 2 received" in view.status_reason
        for stack in (failing, waiting):
            view = cloud_engine.delete(stack)
            assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
            assert leftovers(demo, stack) == []
    finally:
        purge(demo, failing)
        purge(demo, waiting)


TEMP_URL_HANDLE = """
heat_template_version: 2018-08-31
resources:
  handle:
    type: OS::Heat::WaitConditionHandle
    properties: {signal_transport: TEMP_URL_SIGNAL}
  wait:
    type: OS::Heat::WaitCondition
    properties: {handle: {get_resource: handle}, count: 2, timeout: 120}
outputs:
  data: {value: {get_attr: [wait, data]}}
"""


def test_a_temp_url_signal_handle_is_signalled_by_puts_to_its_alarm_url(
    cloud_engine: CloudEngine,
    demo: Connection,  # noqa: F811
) -> None:
    stack = cloud_engine.create(f"sws-{uuid.uuid4().hex[:8]}", TEMP_URL_HANDLE)
    try:
        deadline = time.monotonic() + 120
        while True:
            view = cloud_engine.service.show_resource(CTX, stack, "handle", with_attr=("signal",))
            signal = json.loads((view.attributes or {}).get("signal") or "null")
            if view.status == "COMPLETE" and signal:
                break
            assert view.status != "FAILED", view.status_reason
            assert time.monotonic() < deadline, "the handle is not made"
            time.sleep(0.5)
        alarm_url = signal["alarm_url"]
        assert f"/{stack.id}/" in alarm_url
        run_curl(f"curl -i -X PUT '{alarm_url}'", {"data": "one"})
        run_curl(f"curl -i -X PUT '{alarm_url}'", {"data": "two", "id": "b"})
        view = cloud_engine.wait(stack)
        assert (view.action, view.status) == ("CREATE", "COMPLETE"), view.status_reason
        assert json.loads(cloud_engine.outputs(stack)["data"]) == {"1": "one", "b": "two"}

        view = cloud_engine.delete(stack)
        assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
        assert leftovers(demo, stack) == []
    finally:
        purge(demo, stack)
