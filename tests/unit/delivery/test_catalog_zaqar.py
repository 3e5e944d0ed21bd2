"""The Zaqar reached as the agents, through their Keystone catalog: what it needs of them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from thermik.conf.settings import Settings, ZaqarSettings
from thermik.delivery.base import DeploymentRef, ServerRef
from thermik.delivery.impl_zaqar import CatalogZaqarBackend, agent_of_inputs, logs_in
from thermik.errors import DeliveryRejected

AGENT = {
    "auth_url": "http://keystone/v3",
    "user_id": "u-1",
    "password": "secret",
    "project_id": "p-1",
    "region_name": "RegionOne",
}


def test_agents_that_log_in_name_all_four_credentials() -> None:
    assert logs_in(AGENT)
    assert not logs_in({**AGENT, "user_id": ""})
    assert not logs_in({"metadata_url": "http://x"})


def test_the_signal_inputs_give_back_the_agent_credentials() -> None:
    inputs = {
        "deploy_auth_url": AGENT["auth_url"],
        "deploy_user_id": AGENT["user_id"],
        "deploy_password": AGENT["password"],
        "deploy_project_id": AGENT["project_id"],
        "deploy_region_name": AGENT["region_name"],
        "deploy_queue_id": "q",
    }
    assert agent_of_inputs(inputs) == AGENT
    del inputs["deploy_region_name"]
    assert "region_name" not in agent_of_inputs(inputs)


def test_it_needs_no_configured_zaqar_but_refuses_agents_without_keystone_credentials(
    tmp_path: Path,
) -> None:
    settings = dataclasses.replace(Settings.embedded(tmp_path), zaqar=ZaqarSettings(url=None))
    backend = CatalogZaqarBackend.from_settings(settings)
    assert (backend.name, backend.config_transport) == ("zaqar-catalog", "ZAQAR_MESSAGE")
    with pytest.raises(DeliveryRejected, match="needs the agent's Keystone credentials"):
        backend.provision(ServerRef("srv"))
    with pytest.raises(DeliveryRejected, match="needs the agent's Keystone credentials"):
        backend.provision_signal(DeploymentRef("dep", "srv", "cfg"))
