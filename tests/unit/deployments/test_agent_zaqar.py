"""ZAQAR_MESSAGE servers and ZAQAR_SIGNAL deployments of an engine whose configured backend is
no Zaqar: the agents' own queues (``agent_zaqar``) serve them, played here by an in-memory
backend of queues kept per agent."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Self

import pytest

from tests.unit.deployments.test_poll_server_heat import request
from tests.unit.deployments.test_service import FAST
from thermik.conf.settings import Settings
from thermik.delivery.base import (
    DeliveryBackend,
    DeploymentRef,
    MetadataEndpoint,
    PublishResult,
    ServerRef,
    SignalEndpoint,
)
from thermik.delivery.impl_builtin import BuiltinBackend, InMemoryObjectStore
from thermik.deployments import DeploymentService
from thermik.errors import PluginError
from thermik.persistence.store import Store
from thermik.resources.software_services import ConfigData
from thermik.service import open_engine_store

AGENT = {"auth_url": "http://ks/v3", "user_id": "u", "password": "pw", "project_id": "proj"}
SCRIPT = ConfigData(name="s", group="script", config="echo", outputs=({"name": "out"},))


class AgentQueues(DeliveryBackend):
    """Queues by (project, name), reached only with the agent's credentials."""

    name = "zaqar-catalog"
    config_transport = "ZAQAR_MESSAGE"
    signal_transport = "ZAQAR_SIGNAL"

    def __init__(self) -> None:
        self.queues: dict[tuple[str, str], list[Mapping[str, Any]]] = {}

    @classmethod
    def from_settings(cls, settings: Settings) -> Self:
        return cls()

    def provision(self, server: ServerRef) -> MetadataEndpoint:
        key = (server.credentials["project_id"], f"q-{server.server_id}")
        self.queues.setdefault(key, [])
        settings = {**server.credentials, "queue_id": key[1]}
        return MetadataEndpoint(self.name, server.server_id, "zaqar", settings, {"queue": key[1]})

    def publish(self, endpoint: MetadataEndpoint, document: Mapping[str, Any]) -> PublishResult:
        project = endpoint.collector_settings["project_id"]
        self.queues[(project, endpoint.locator["queue"])].append(document)
        return PublishResult(True, 201)

    def read_back(self, endpoint: MetadataEndpoint) -> Mapping[str, Any] | None:
        project = endpoint.collector_settings["project_id"]
        posted = self.queues.get((project, endpoint.locator["queue"]))
        return posted[-1] if posted else None

    def provision_signal(self, deployment: DeploymentRef) -> SignalEndpoint:
        project = deployment.credentials["project_id"]
        name = f"signal-{deployment.config_id}"
        self.queues[(project, name)] = []
        inputs = {"deploy_queue_id": name, "deploy_project_id": project}
        locator = {"queue": name, "project": project}
        return SignalEndpoint(self.name, deployment.deployment_id, "ZAQAR_SIGNAL", inputs, locator)

    def collect_signals(self, endpoint: SignalEndpoint) -> list[Mapping[str, Any]]:
        key = (endpoint.locator["project"], endpoint.locator["queue"])
        popped, self.queues[key] = self.queues.get(key, []), []
        return popped

    def revoke(self, endpoint: MetadataEndpoint | SignalEndpoint) -> None:
        for key in [k for k in self.queues if k[1] == endpoint.locator["queue"]]:
            del self.queues[key]


@dataclasses.dataclass
class Engine:
    service: DeploymentService
    queues: AgentQueues


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    store: Store = open_engine_store(Settings.embedded(tmp_path))
    builtin = BuiltinBackend(InMemoryObjectStore(), key="k", base_url="http://unused")
    queues = AgentQueues()
    service = DeploymentService(store, builtin, policy=FAST, agent_zaqar=queues)
    yield Engine(service, queues)
    service.close()
    builtin.close()
    store.close()


def test_a_server_with_keystone_credentials_gets_its_own_queue_and_signals_through_another(
    engine: Engine,
) -> None:
    endpoint = engine.service.provision_server("srv", "ZAQAR_MESSAGE", {}, credentials=AGENT)
    assert endpoint.agent_config["collectors"] == ["zaqar", "local"]
    assert endpoint.agent_config["zaqar"]["queue_id"] == "q-srv"
    config_id = engine.service.create_config("tenant", SCRIPT)
    state = engine.service.start_action(request(config_id, "ZAQAR_SIGNAL"), None)
    signal = state.handle.signal
    assert signal is not None
    assert signal["backend"] == "zaqar-catalog"
    queue = (AGENT["project_id"], signal["inputs"]["deploy_queue_id"])
    engine.queues.queues[queue].append({"out": "here!", "deploy_status_code": 0})
    done = engine.service.refresh(state.handle)
    assert (done.status, done.output_values["out"]) == ("COMPLETE", "here!")


def test_other_servers_keep_the_configured_backend_and_its_refusals(engine: Engine) -> None:
    polled = engine.service.provision_server("cfn", "POLL_SERVER_CFN", {})
    assert "request" in polled.agent_config
    with pytest.raises(PluginError, match="ZAQAR_MESSAGE is not offered"):
        engine.service.provision_server("plain", "ZAQAR_MESSAGE", {})
    config_id = engine.service.create_config("tenant", SCRIPT)
    asked = dataclasses.replace(request(config_id, "ZAQAR_SIGNAL"), server_id="cfn")
    with pytest.raises(PluginError, match="ZAQAR_SIGNAL is not offered"):
        engine.service.start_action(asked, None)
