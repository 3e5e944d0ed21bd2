"""DeploymentService over a real SQLite Store and real (in-process) delivery backends.

The agent is played with plain HTTP against the URLs the backends hand out: what it GETs is the
served document, what it PUTs is its signal.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from thermik.conf.settings import Settings
from thermik.delivery import document
from thermik.delivery.base import DeliveryBackend
from thermik.delivery.fakeswift_cluster import FakeSwiftCluster
from thermik.delivery.impl_builtin import BuiltinBackend, InMemoryObjectStore
from thermik.delivery.impl_fakeswift import FakeSwiftBackend
from thermik.delivery.metadata_writer import DeliveryPolicy
from thermik.deployments import DeploymentService
from thermik.errors import NotFound, PluginError
from thermik.persistence.store import Store
from thermik.resources.software_services import ActionRequest, ConfigData, DeploymentState
from thermik.service import open_engine_store

FAST = DeliveryPolicy(
    initial_backoff=0.01,
    max_backoff=0.05,
    failure_backoff=0.02,
    max_attempts=3,
    recovery_interval=0.05,
)
SCRIPT = ConfigData(
    name="hello",
    group="script",
    config="#!/bin/sh\necho hi",
    inputs=({"name": "who", "type": "String", "default": "world"},),
    outputs=({"name": "result", "type": "String"}, {"name": "bad", "error_output": True}),
)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = open_engine_store(Settings.embedded(tmp_path))
    yield opened
    opened.close()


class World:
    """A DeploymentService over ``backend`` with one provisioned server and a script config."""

    def __init__(self, store: Store, backend: DeliveryBackend) -> None:
        self.store = store
        self.backend = backend
        self.service = DeploymentService(store, backend, policy=FAST)
        self.woken: list[tuple[str, str]] = []
        self.service.attach(lambda stack, resource: self.woken.append((stack, resource)))
        self.endpoint = self.service.provision_server("srv", "POLL_SERVER_CFN", {"k": "v"})
        self.config_id = self.service.create_config("tenant", SCRIPT)
        self._n = 0

    @property
    def metadata_url(self) -> str:
        url: str = self.endpoint.agent_config["request"]["metadata_url"]
        return url

    def request(self, **fields: Any) -> ActionRequest:
        self._n += 1
        values: dict[str, Any] = {
            "deployment_id": f"dep-{self._n}",
            "server_id": "srv",
            "tenant": "tenant",
            "stack_id": "stack-id",
            "stack_name": "stack",
            "resource_name": f"d{self._n}",
            "owner": f"d{self._n}",
            "action": "CREATE",
            "config_id": self.config_id,
            "input_values": {"who": "you"},
            "signal_transport": "CFN_SIGNAL",
            "physical_name": f"stack-d{self._n}-x",
        }
        values.update(fields)
        return ActionRequest(**values)

    def served(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.metadata_url, timeout=10) as response:
            served: dict[str, Any] = json.loads(response.read())
        return served

    def wait_served(self, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        deadline = time.monotonic() + 10
        while True:
            try:
                found = self.served()
                if check(found):
                    return found
            except urllib.error.HTTPError as error:
                error.close()
            assert time.monotonic() < deadline, "the document never got there"
            time.sleep(0.02)

    def close(self) -> None:
        self.service.close()
        self.backend.close()


def signal_url(state: DeploymentState) -> str:
    assert state.handle.signal is not None
    url: str = state.handle.signal["inputs"]["deploy_signal_id"]
    return url


def put(url: str, body: bytes) -> int:
    request = urllib.request.Request(url, data=body, method="PUT")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        error.close()
        return error.code


@pytest.fixture
def builtin(store: Store) -> Iterator[World]:
    backend = BuiltinBackend(InMemoryObjectStore(), key="k", base_url="http://unused")
    backend.serve_on_loopback()
    world = World(store, backend)
    yield world
    world.close()


@pytest.fixture
def fakeswift(store: Store) -> Iterator[World]:
    world = World(store, FakeSwiftBackend(FakeSwiftCluster(), serve=True))
    yield world
    world.close()


def test_a_provisioned_server_serves_its_template_metadata(builtin: World) -> None:
    assert builtin.endpoint.agent_config["collectors"] == ["request", "local"]
    served = builtin.wait_served(lambda d: document.generation_of(d) > 0)
    assert served["deployments"] == []
    assert served["k"] == "v"
    assert served["os-collect-config"] == builtin.endpoint.agent_config
    assert builtin.service.server_agent_config("srv") == builtin.endpoint.agent_config


def test_an_action_is_published_and_its_pushed_signal_completes_it(builtin: World) -> None:
    state = builtin.service.start_action(builtin.request(name="first"), None)
    assert (state.status, state.status_reason) == ("IN_PROGRESS", "Deploy data available")
    served = builtin.wait_served(lambda d: bool(d["deployments"]))
    (entry,) = served["deployments"]
    assert entry["id"] == state.handle.config_id
    assert entry["name"] == "first"
    inputs = {i["name"]: i["value"] for i in entry["inputs"]}
    assert inputs["who"] == "you"
    assert inputs["deploy_stack_id"] == "stack/stack-id"
    assert inputs["deploy_signal_transport"] == "TEMP_URL_SIGNAL"
    assert inputs["deploy_signal_verb"] == "PUT"
    payload = {"deploy_stdout": "hi\n", "deploy_status_code": 0, "result": "r", "x": 1}
    assert put(signal_url(state), json.dumps(payload).encode()) == 201
    assert builtin.woken == [("stack-id", "d1")]
    row = builtin.store.get_software_deployment("dep-1")
    assert (row.status, row.status_reason) == ("COMPLETE", "Outputs received")
    assert row.output_values == {
        "result": "r",
        "deploy_stdout": "hi\n",
        "deploy_stderr": None,
        "deploy_status_code": 0,
    }
    found = builtin.service.refresh(state.handle)
    assert found.status == "COMPLETE"
    assert found.output_values["result"] == "r"


def test_malformed_and_oversized_signals_change_nothing(builtin: World) -> None:
    state = builtin.service.start_action(builtin.request(), None)
    assert put(signal_url(state), b"not json") == 400
    assert put(signal_url(state), b"[1, 2]") == 400
    assert put(signal_url(state), b"{" + b" " * 1048576 + b"}") == 413
    assert put(signal_url(state).replace("temp_url_sig=", "temp_url_sig=0"), b"{}") == 403
    assert builtin.woken == []
    assert builtin.service.refresh(state.handle).status == "IN_PROGRESS"


def test_signals_for_a_settled_deployment_are_ignored(builtin: World) -> None:
    state = builtin.service.start_action(builtin.request(), None)
    handle = state.handle
    reason = builtin.service.signal(handle, {"deploy_status_code": 4})
    assert reason == "Signal: deployment failed (4)"
    failed = builtin.service.refresh(handle)
    assert failed.status == "FAILED"
    assert failed.status_reason == (
        "deploy_status_code : Deployment exited with non-zero status code: 4"
    )
    later = builtin.service.signal(handle, {"deploy_status_code": 0, "result": "late"})
    assert later == "Signal: deployment succeeded (ignored: the deployment is CREATE FAILED)"
    assert builtin.service.refresh(handle).output_values["deploy_status_code"] == 4


def test_an_error_output_fails_the_deployment(builtin: World) -> None:
    state = builtin.service.start_action(builtin.request(), None)
    builtin.service.signal(state.handle, {"deploy_status_code": 0, "bad": "it broke"})
    assert builtin.service.refresh(state.handle).status_reason == "bad : it broke"


def test_a_new_action_supersedes_the_previous_one(builtin: World) -> None:
    first = builtin.service.start_action(builtin.request(), None)
    update = builtin.request(deployment_id="dep-1", action="UPDATE", input_values={"who": "me"})
    second = builtin.service.start_action(update, first.handle)
    assert second.handle.deployment_id == "dep-1"
    assert second.handle.config_id != first.handle.config_id
    with pytest.raises(NotFound):
        builtin.store.get_software_config(first.handle.config_id)
    served = builtin.wait_served(
        lambda d: [e["id"] for e in d["deployments"]] == [second.handle.config_id]
    )
    assert {i["name"]: i["value"] for i in served["deployments"][0]["inputs"]}["who"] == "me"
    assert put(signal_url(first), b'{"deploy_status_code": 0}') == 201
    assert builtin.woken == []  # the superseded action's URL reaches nobody
    assert builtin.service.refresh(second.handle).status == "IN_PROGRESS"


def test_removed_deployments_leave_the_document(builtin: World) -> None:
    state = builtin.service.start_action(builtin.request(), None)
    builtin.wait_served(lambda d: len(d["deployments"]) == 1)
    builtin.service.remove(state.handle)
    builtin.wait_served(lambda d: d["deployments"] == [])
    assert builtin.service.get_deployment(state.handle) is None
    with pytest.raises(PluginError, match="no longer exists"):
        builtin.service.refresh(state.handle)


def test_transports_without_a_signal_endpoint(builtin: World) -> None:
    quiet = builtin.service.start_action(builtin.request(signal_transport="NO_SIGNAL"), None)
    assert (quiet.status, quiet.status_reason) == ("COMPLETE", "Not waiting for outputs signal")
    assert quiet.handle.signal is None
    heat = builtin.service.start_action(builtin.request(signal_transport="HEAT_SIGNAL"), None)
    assert heat.handle.signal is None
    served = builtin.wait_served(lambda d: len(d["deployments"]) == 2)
    names = {i["name"] for e in served["deployments"] for i in e["inputs"]}
    assert "deploy_signal_id" not in names
    builtin.service.signal(heat.handle, {"deploy_status_code": 0})
    assert builtin.service.refresh(heat.handle).status == "COMPLETE"


def test_requests_the_engine_cannot_serve_are_clear_errors(builtin: World) -> None:
    with pytest.raises(PluginError, match="ZAQAR_SIGNAL is not offered"):
        builtin.service.start_action(builtin.request(signal_transport="ZAQAR_SIGNAL"), None)
    with pytest.raises(PluginError, match="server elsewhere has no metadata endpoint here"):
        builtin.service.start_action(builtin.request(server_id="elsewhere"), None)
    with pytest.raises(PluginError, match="ZAQAR_MESSAGE is not offered"):
        builtin.service.provision_server("other", "ZAQAR_MESSAGE", {})


def test_released_servers_stop_serving(builtin: World) -> None:
    builtin.wait_served(lambda d: True)
    builtin.service.release_server("srv")
    assert builtin.service.server_agent_config("srv") is None
    with pytest.raises(urllib.error.HTTPError) as info:
        builtin.served()
    info.value.close()
    assert info.value.code == 404


def test_polled_signals_are_collected_on_refresh(fakeswift: World) -> None:
    state = fakeswift.service.start_action(fakeswift.request(), None)
    fakeswift.wait_served(lambda d: len(d["deployments"]) == 1)
    assert put(signal_url(state), b'{"deploy_status_code": 0, "result": "polled"}') == 201
    assert fakeswift.woken == []
    found = fakeswift.service.refresh(state.handle)
    assert (found.status, found.output_values["result"]) == ("COMPLETE", "polled")


def test_failing_delivery_fails_the_waiting_deployment_then_recovers(fakeswift: World) -> None:
    fakeswift.wait_served(lambda d: True)
    assert isinstance(fakeswift.backend, FakeSwiftBackend)
    cluster = fakeswift.backend.cluster
    cluster.configure(down=True)
    state = fakeswift.service.start_action(fakeswift.request(), None)
    deadline = time.monotonic() + 10
    while (found := fakeswift.service.refresh(state.handle)).status == "IN_PROGRESS":
        assert time.monotonic() < deadline, "the delivery failure was never reported"
        time.sleep(0.02)
    assert found.status == "FAILED"
    assert found.status_reason.startswith("metadata delivery to server srv failed 3 time(s)")
    assert "connection refused" in found.status_reason
    cluster.configure(down=False)
    fakeswift.wait_served(
        lambda d: [e["id"] for e in d["deployments"]] == [state.handle.config_id]
    )
    later = fakeswift.service.start_action(fakeswift.request(), None)
    fakeswift.wait_served(lambda d: len(d["deployments"]) == 2)
    assert fakeswift.service.refresh(later.handle).status == "IN_PROGRESS"


def get_status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        error.close()
        return error.code


def served_at(url: str, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    deadline = time.monotonic() + 10
    while True:
        if get_status(url) == 200:
            with urllib.request.urlopen(url, timeout=10) as response:
                served: dict[str, Any] = json.loads(response.read())
            if check(served):
                return served
        assert time.monotonic() < deadline, "the document never got there"
        time.sleep(0.02)


def test_a_server_created_after_its_endpoint_is_served_once_bound(builtin: World) -> None:
    service = builtin.service
    reserved = service.reserve_server(
        "version-7", "POLL_TEMP_URL", {"role": "db"}, default_collectors=("ec2",)
    )
    url: str = reserved.agent_config["request"]["metadata_url"]
    assert reserved.agent_config["collectors"] == ["ec2", "request", "local"]
    assert service.server_agent_config("nova-1") is None
    time.sleep(0.1)
    assert get_status(url) == 404  # nothing is published before the server exists
    bound = service.bind_server("nova-1", json.loads(json.dumps(reserved.record)))
    assert bound.agent_config == reserved.agent_config
    assert service.server_agent_config("nova-1") == reserved.agent_config
    state = service.start_action(builtin.request(server_id="nova-1"), None)
    served = served_at(url, lambda d: bool(d["deployments"]))
    assert served["role"] == "db"
    assert served["os-collect-config"] == reserved.agent_config
    assert [d["id"] for d in served["deployments"]] == [state.handle.config_id]
    service.release_server("nova-1")
    assert get_status(url) == 404


def test_a_reserved_endpoint_never_bound_is_revoked(builtin: World) -> None:
    reserved = builtin.service.reserve_server("version-8", "POLL_SERVER_HEAT", {})
    url: str = reserved.agent_config["request"]["metadata_url"]
    builtin.service.revoke_endpoint(reserved.record)
    assert get_status(url) == 404
    with pytest.raises(PluginError, match="ZAQAR_MESSAGE is not offered"):
        builtin.service.reserve_server("version-9", "ZAQAR_MESSAGE", {})
