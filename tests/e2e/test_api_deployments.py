"""Software deployments made through the REST API reach the server's agent, as in Heat.

python-heatclient (unmodified) creates, re-points and deletes deployments for an
``OS::Heat::DeployedServer`` the way ``openstack software deployment create`` does (a derived
config built by heatclient's own ``build_derived_config_params``, then the deployment); the
server's metadata document, read over HTTP from the builtin backend's URL like an agent does,
follows every change. ``openstack stack resource metadata`` of the server shows what the agent
is served: its ``os-collect-config`` section and ``deployments``.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
from heatclient import client as heat_client
from heatclient.common import deployment_utils

from tests.e2e.support import server_stack
from thermik.delivery.document import GENERATION_KEY

#: How long a change may take to reach the served document.
DELIVERY = 30.0


@pytest.fixture
def heat(shared_root: str, own_tenant: str) -> Any:
    """heatclient as most tools build it: endpoint and token, no Keystone."""
    return heat_client.Client("1", endpoint=f"{shared_root}/v1/{own_tenant}", token="anything")


def served(url: str) -> dict[str, Any]:
    """The document the server's agent reads now."""
    with urllib.request.urlopen(url, timeout=10) as response:
        document: dict[str, Any] = json.loads(response.read())
        return document


def eventually(url: str, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Poll the agent's document like os-collect-config until ``check`` holds."""
    deadline = time.monotonic() + DELIVERY
    while True:
        document = served(url)
        if check(document):
            return document
        assert time.monotonic() < deadline, f"never served as expected: {document}"
        time.sleep(0.05)


def served_ids(document: dict[str, Any]) -> list[str]:
    return [entry["id"] for entry in document["deployments"]]


def derived_config(heat: Any, server_id: str, name: str, script: str) -> Any:
    """A derived config built as ``openstack software deployment create`` builds it."""
    source = heat.software_configs.create(
        name=f"{name}-source",
        group="script",
        config=script,
        inputs=[{"name": "greeting", "default": "hello"}],
        outputs=[{"name": "result"}],
    )
    params = deployment_utils.build_derived_config_params(
        "CREATE", source, name, {"greeting": "hi"}, server_id, "NO_SIGNAL"
    )
    return heat.software_configs.create(**params)


def test_api_deployments_are_served_to_the_agent(heat: Any) -> None:
    server_id, url = server_stack(heat, "api-deploy")
    assert served(url)["deployments"] == []
    config = derived_config(heat, server_id, "first", "echo $greeting")
    deployment = heat.software_deployments.create(
        config_id=config.id, server_id=server_id, action="CREATE", status="IN_PROGRESS"
    )

    document = eventually(url, lambda d: served_ids(d) == [config.id])
    [entry] = document["deployments"]
    assert (entry["name"], entry["group"], entry["config"]) == (
        "first",
        "script",
        "echo $greeting",
    )
    inputs = {item["name"]: item["value"] for item in entry["inputs"]}
    assert inputs["greeting"] == "hi"
    assert inputs["deploy_server_id"] == server_id
    assert inputs["deploy_signal_transport"] == "NO_SIGNAL"

    # Outputs and status alone do not change the document (Heat does not push then) ...
    heat.software_deployments.update(
        deployment.id, status="COMPLETE", output_values={"result": "hi"}
    )
    assert served_ids(served(url)) == [config.id]
    # ... another config does.
    second = derived_config(heat, server_id, "second", "echo again")
    heat.software_deployments.update(deployment.id, config_id=second.id, status="IN_PROGRESS")
    eventually(url, lambda d: served_ids(d) == [second.id])
    other = heat.software_deployments.create(
        config_id=config.id, server_id=server_id, action="CREATE"
    )
    eventually(url, lambda d: served_ids(d) == [config.id, second.id])

    heat.software_deployments.delete(deployment.id)
    eventually(url, lambda d: served_ids(d) == [config.id])
    heat.software_deployments.delete(other.id)
    eventually(url, lambda d: served_ids(d) == [])


def test_another_tenants_deployment_never_reaches_the_server(
    heat: Any, shared_root: str, own_tenant: str
) -> None:
    server_id, url = server_stack(heat, "guarded")
    intruder = heat_client.Client(
        # A project id fits 64 characters (the column it is stored in).
        "1",
        endpoint=f"{shared_root}/v1/{own_tenant[:55]}-intruder",
        token="anything",
    )
    foreign = derived_config(intruder, server_id, "foreign", "rm -rf /")
    intruder.software_deployments.create(
        config_id=foreign.id, server_id=server_id, action="CREATE"
    )
    own = derived_config(heat, server_id, "own", "true")
    heat.software_deployments.create(config_id=own.id, server_id=server_id, action="CREATE")
    eventually(url, lambda d: served_ids(d) == [own.id])
    time.sleep(0.5)  # what the intruder's create might have pushed has had time to land
    assert served_ids(served(url)) == [own.id]
    assert [e["id"] for e in heat.resources.metadata("guarded", "server")["deployments"]] == [
        own.id
    ]


def test_server_resource_metadata_shows_what_the_agent_reads(heat: Any) -> None:
    server_id, url = server_stack(heat, "shown")
    metadata = heat.resources.metadata("shown", "server")
    assert metadata["role"] == "web"
    assert metadata["deployments"] == []
    assert metadata["os-collect-config"]["request"]["metadata_url"] == url
    config = derived_config(heat, server_id, "first", "true")
    heat.software_deployments.create(config_id=config.id, server_id=server_id, action="CREATE")
    document = eventually(url, lambda d: served_ids(d) == [config.id])
    metadata = heat.resources.metadata("shown", "server")
    agent_reads = {k: v for k, v in document.items() if k != GENERATION_KEY}
    assert metadata == {"role": "web", **agent_reads}


def test_a_config_the_agent_cannot_be_given_does_not_hold_up_the_others(heat: Any) -> None:
    server_id, url = server_stack(heat, "mixed")
    nameless = heat.software_configs.create(
        name="nameless", group="script", config="true", outputs=[{"name": ""}]
    )
    heat.software_deployments.create(config_id=nameless.id, server_id=server_id, action="CREATE")
    good = derived_config(heat, server_id, "good", "true")
    heat.software_deployments.create(config_id=good.id, server_id=server_id, action="CREATE")
    eventually(url, lambda d: served_ids(d) == [good.id])
