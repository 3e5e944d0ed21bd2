"""POLL_SERVER_HEAT in the deployment services: a server with a stack user's credentials is
served by the REST API (no backend write), and its HEAT_SIGNAL deployments carry those
credentials for heat-config-notify; without credentials it stays the configured transport."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.deployments.test_service import FAST, SCRIPT
from thermik.conf.settings import Settings
from thermik.delivery.impl_builtin import BuiltinBackend, InMemoryObjectStore
from thermik.deployments import DeploymentService
from thermik.deployments.configs import derived_of
from thermik.deployments.transports import heat_signal_inputs, polls_api
from thermik.errors import PropertyError
from thermik.persistence.store import Store
from thermik.resources.software_services import ActionRequest
from thermik.service import open_engine_store

AGENT = {
    "auth_url": "http://keystone/v3",
    "user_id": "agent-user",
    "password": "secret",
    "project_id": "stack-user-project",
    "region_name": "agents",
    "stack_id": "stack/stack-id",
    "resource_name": "server",
}


@pytest.fixture
def service(tmp_path: Path) -> Iterator[tuple[Store, DeploymentService]]:
    store = open_engine_store(Settings.embedded(tmp_path))
    backend = BuiltinBackend(InMemoryObjectStore(), key="k", base_url="http://unused")
    found = DeploymentService(store, backend, policy=FAST)
    yield store, found
    found.close()
    backend.close()
    store.close()


def request(config_id: str, signal_transport: str) -> ActionRequest:
    return ActionRequest(
        deployment_id="dep-1",
        server_id="srv",
        tenant="tenant",
        stack_id="stack-id",
        stack_name="stack",
        resource_name="first",
        owner="first",
        action="CREATE",
        config_id=config_id,
        input_values={},
        signal_transport=signal_transport,
        physical_name="stack-first-x",
    )


def test_a_server_with_a_stack_user_polls_the_api_and_signals_through_it(
    service: tuple[Store, DeploymentService],
) -> None:
    store, deployments = service
    endpoint = deployments.provision_server(
        "srv", "POLL_SERVER_HEAT", {}, credentials=AGENT, default_collectors=("ec2",)
    )
    assert endpoint.agent_config["collectors"] == ["ec2", "heat", "local"]
    assert endpoint.agent_config["heat"] == AGENT
    config_id = deployments.create_config("tenant", SCRIPT)

    state = deployments.start_action(request(config_id, "HEAT_SIGNAL"), None)

    assert state.status == "IN_PROGRESS"
    inputs = {
        i.decl.name: i.value
        for i in derived_of(store.get_software_config(state.handle.config_id)).inputs
    }
    assert (
        inputs.items()
        >= {
            "deploy_auth_url": "http://keystone/v3",
            "deploy_user_id": "agent-user",
            "deploy_password": "secret",
            "deploy_project_id": "stack-user-project",
            "deploy_region_name": "agents",
        }.items()
    )
    assert inputs["deploy_signal_transport"] == "HEAT_SIGNAL"
    reason = deployments.signal(state.handle, {"deploy_status_code": 0, "result": "r"})
    assert reason == "Signal: deployment succeeded"


def test_without_a_stack_user_poll_server_heat_is_the_configured_transport(
    service: tuple[Store, DeploymentService],
) -> None:
    _, deployments = service
    endpoint = deployments.provision_server("srv", "POLL_SERVER_HEAT", {})
    assert endpoint.agent_config["collectors"] == ["request", "local"]


def test_the_api_transport_needs_every_credential(
    service: tuple[Store, DeploymentService],
) -> None:
    _, deployments = service
    partial = {k: v for k, v in AGENT.items() if k != "password"}
    with pytest.raises(PropertyError, match="password missing"):
        deployments.provision_server("srv", "POLL_SERVER_HEAT", {}, credentials=partial)


def test_which_servers_poll_the_api_and_what_heat_signal_carries() -> None:
    assert polls_api("POLL_SERVER_HEAT", AGENT)
    assert not polls_api("POLL_SERVER_HEAT", {"user_id": "u"})
    assert not polls_api("POLL_TEMP_URL", AGENT)
    assert heat_signal_inputs({"request": "x"}) == {}
    assert heat_signal_inputs({**AGENT, "region_name": None})["deploy_user_id"] == "agent-user"
    assert "deploy_region_name" not in heat_signal_inputs({**AGENT, "region_name": None})
