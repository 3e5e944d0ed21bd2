"""Service mode scaled out: one thermik-api with two pre-forked workers (``[api] workers = 2``)
and three thermik-engine processes on one PostgreSQL database and RabbitMQ.

Which worker takes a connection is the kernel's choice; the tests choose for it by stopping
the other worker (SIGSTOP: a stopped process accepts nothing, so the one left running serves
every new connection) and resuming it afterwards:

* a DeployedServer's builtin metadata URL serves the same document through either worker,
  and a deployment's signal PUT to one worker and a wait condition handle's signal POSTed to
  the other both reach the engine driving the stack, which completes;
* nested stacks start on any engine: a parent whose children ran on other engines completes
  because their engines told its engine (a ``wake`` cast, counted in the parent engine's
  log), with the parents' fallback poll set far beyond the test's time;
* a worker killed with SIGKILL is replaced, and SIGTERM to the parent stops every worker.
"""

from __future__ import annotations

import json
import os
import re
import signal
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.functional.rpc.cluster import (
    Api,
    ScaledCluster,
    free_port,
    resume,
    wait_until,
    write_config,
)
from tests.functional.rpc.test_service_mode import settles

pytestmark = pytest.mark.timeout(300)

ENGINES = 3
WORKERS = 2
#: The parents' safety-net poll of a running child: far beyond the test, so a parent that
#: completes in time was told by message.
NESTED_POLL = 3600


@pytest.fixture(scope="module")
def scaled(
    rabbit: tuple[str, str], postgresql: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ScaledCluster]:
    """The cluster; builtin delivery URLs name the API's port."""
    transport, name = rabbit
    port = free_port()
    directory = tmp_path_factory.mktemp("scaled")
    config = write_config(
        directory / "thermik.conf",
        postgresql,
        transport,
        name,
        api=f"workers = {WORKERS}\nbind_port = {port}\n\n[delivery]\n"
        f"public_url = http://127.0.0.1:{port}",
        engine=f"nested_poll_interval = {NESTED_POLL}",
    )
    cluster = ScaledCluster(config, port, ENGINES, WORKERS)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.close()


@pytest.fixture(scope="module")
def api(scaled: ScaledCluster) -> Api:
    """A client of the cluster's API."""
    assert scaled.api is not None
    return Api(scaled.api)


class Only:
    """While in use, only the worker ``pid`` takes new connections (the others stopped)."""

    def __init__(self, cluster: ScaledCluster, pid: int) -> None:
        self.stopped = [other for other in cluster.workers if other != pid]

    def __enter__(self) -> None:
        for pid in self.stopped:
            os.kill(pid, signal.SIGSTOP)

    def __exit__(self, *exc: object) -> None:
        for pid in self.stopped:
            resume(pid)


def fetch(method: str, url: str, body: Any = None) -> tuple[int, bytes]:
    """An agent's request to a capability URL; the status and the body."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


DEPLOYED = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "server": {
            "type": "OS::Heat::DeployedServer",
            "properties": {"software_config_transport": "POLL_TEMP_URL"},
        },
        "config": {
            "type": "OS::Heat::SoftwareConfig",
            "properties": {"group": "script", "config": "true", "outputs": [{"name": "result"}]},
        },
        "deployment": {
            "type": "OS::Heat::SoftwareDeployment",
            "properties": {
                "server": {"get_resource": "server"},
                "config": {"get_resource": "config"},
                "signal_transport": "TEMP_URL_SIGNAL",
            },
        },
        "handle": {"type": "OS::Heat::WaitConditionHandle"},
        "wait": {
            "type": "OS::Heat::WaitCondition",
            "properties": {"handle": {"get_resource": "handle"}, "timeout": 120},
        },
    },
    "outputs": {
        "result": {"value": {"get_attr": ["deployment", "result"]}},
        "handled": {"value": {"get_attr": ["wait", "data"]}},
    },
}


def resource(api: Api, stack: str, stack_id: str, name: str, path: str = "") -> Any:
    status, answer = api.request("GET", f"/stacks/{stack}/{stack_id}/resources/{name}{path}")
    assert status == 200, answer
    return answer


def signal_url(document: dict[str, Any]) -> str:
    """The deployment's signal URL in the server's document."""
    [entry] = document["deployments"]
    inputs = {item["name"]: item["value"] for item in entry["inputs"]}
    return str(inputs["deploy_signal_id"])


def test_delivery_through_either_worker(scaled: ScaledCluster, api: Api) -> None:
    first, second = scaled.workers
    status, answer = api.request("POST", "/stacks", {"stack_name": "dep", "template": DEPLOYED})
    assert status == 201, answer
    stack_id = answer["stack"]["id"]
    wait_until(
        lambda: (
            resource(api, "dep", stack_id, "deployment")["resource"]["resource_status"]
            == "CREATE_IN_PROGRESS"
        ),
        60,
        "the deployment to wait for its signal",
    )
    metadata = resource(api, "dep", stack_id, "server", "/metadata")["metadata"]
    url = metadata["os-collect-config"]["request"]["metadata_url"]
    assert url.startswith(f"http://127.0.0.1:{scaled.port}/delivery/v1/metadata/")
    handle = resource(api, "dep", stack_id, "handle")["resource"]["attributes"]["endpoint"]

    served = []
    for worker in (first, second):
        with Only(scaled, worker):
            status, body = fetch("GET", url)
            assert status == 200, body
            served.append(json.loads(body))
    assert served[0] == served[1]
    assert len(served[0]["deployments"]) == 1

    with Only(scaled, first):
        status, body = fetch("POST", handle, {"status": "SUCCESS", "id": "1", "data": "via 1"})
        assert status == 200, body
    with Only(scaled, second):
        outputs = {"deploy_status_code": 0, "deploy_stdout": "", "result": "via second"}
        status, body = fetch("PUT", signal_url(served[1]), outputs)
        assert status == 201, body
    assert settles(api, "dep", stack_id) == "CREATE_COMPLETE"
    status, answer = api.request("GET", f"/stacks/dep/{stack_id}/outputs/result")
    assert answer["output"]["output_value"] == "via second"
    status, answer = api.request("GET", f"/stacks/dep/{stack_id}/outputs/handled")
    assert json.loads(answer["output"]["output_value"]) == {"1": "via 1"}


CHILD = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "slow": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": "child", "action_wait_secs": {"create": 2}},
        }
    },
    "outputs": {"value": {"value": {"get_attr": ["slow", "output"]}}},
}
CHILDREN = 4
NESTED = {
    "heat_template_version": "2018-08-31",
    "resources": {
        f"child{i}": {"type": "OS::Heat::Stack", "properties": {"template": json.dumps(CHILD)}}
        for i in range(CHILDREN)
    },
}
PEER_WAKE = re.compile(r"Child stack (\S+) ended on another engine: waking (\S+) of stack (\S+)")


def test_a_parent_learns_of_its_children_on_other_engines_by_message(
    scaled: ScaledCluster, api: Api
) -> None:
    status, answer = api.request("POST", "/stacks", {"stack_name": "parent", "template": NESTED})
    assert status == 201, answer
    stack_id = answer["stack"]["id"]
    # The parent's poll of a running child comes after an hour: it completes because the
    # children's engines told its engine.
    assert settles(api, "parent", stack_id, timeout=90) == "CREATE_COMPLETE"
    children = {
        resource(api, "parent", stack_id, f"child{i}")["resource"]["physical_resource_id"]
        for i in range(CHILDREN)
    }
    # Four children started on the shared topic of three engines: some ran elsewhere, and
    # each of those was announced to the parent's engine.
    woken = {
        found.group(1)
        for found in PEER_WAKE.finditer(scaled.engine_log())
        if found.group(3) == stack_id
    }
    assert woken, scaled.engine_log()[-4000:]
    assert woken <= children


def test_a_killed_worker_is_replaced_and_sigterm_stops_all(
    scaled: ScaledCluster, api: Api
) -> None:
    assert scaled.api is not None
    victim, survivor = scaled.workers
    os.kill(victim, signal.SIGKILL)
    line = scaled.api.wait_for(rf"API worker pid {victim} killed by signal 9: replaced by pid")
    replacement = int(line.rsplit(" ", 1)[1])
    scaled.api.wait_for(rf"API worker pid {replacement} serving")
    scaled.workers[:] = [replacement, survivor]
    with Only(scaled, replacement):
        status, answer = api.request("GET", "/stacks")
        assert status == 200, answer
    assert scaled.api.stop(signal.SIGTERM) == 0
    for pid in scaled.workers:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
