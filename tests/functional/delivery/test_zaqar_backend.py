"""The zaqar backend against a real Zaqar (Keystone-less, on loopback in CI)."""

from __future__ import annotations

import json
import uuid

import pytest
from zaqarclient.queues import client as zaqar_client

from tests.delivery_services import zaqar_settings
from thermik.delivery.base import DeploymentRef, ServerRef
from thermik.delivery.impl_zaqar import ZaqarBackend
from thermik.errors import InvalidSignal

pytestmark = pytest.mark.functional


def test_every_change_is_one_message_and_the_agent_section_carries_credentials() -> None:
    settings = zaqar_settings()
    assert settings.url is not None
    credentials = {"auth_url": "http://keystone/v3", "user_id": "u", "password": "p"}
    with ZaqarBackend(settings) as backend:
        endpoint = backend.provision(ServerRef(str(uuid.uuid4()), credentials))
        assert endpoint.collector == "zaqar"
        assert endpoint.collector_settings == {
            **credentials,
            "project_id": settings.project_id,
            "queue_id": endpoint.locator["queue"],
        }
        for generation in (1, 2, 3):
            backend.publish(endpoint, {"thermik-generation": generation})
        auth = {"backend": "noauth", "options": {"os_project_id": settings.project_id}}
        agent = zaqar_client.Client(settings.url, version=2, conf={"auth_opts": auth})
        queue = agent.queue(endpoint.locator["queue"], auto_create=False)
        messages = list(queue.messages(echo=True))
        assert [m.body["thermik-generation"] for m in messages] == [1, 2, 3]
        assert all(m.ttl == settings.message_ttl for m in messages)
        assert backend.read_back(endpoint) == {"thermik-generation": 3}
        assert [m.body for m in queue.pop(count=10)][-1] == {"thermik-generation": 3}
        # Popped by the agent: what was last posted is what it has been served.
        assert backend.read_back(endpoint) == {"thermik-generation": 3}
        backend.revoke(endpoint)


def test_malformed_signals_are_skipped_when_others_are_valid_and_raised_when_alone() -> None:
    settings = zaqar_settings()
    assert settings.url is not None
    with ZaqarBackend(settings) as backend:
        signal = backend.provision_signal(DeploymentRef("dep", "srv", str(uuid.uuid4())))
        auth = {"backend": "noauth", "options": {"os_project_id": settings.project_id}}
        agent = zaqar_client.Client(settings.url, version=2, conf={"auth_opts": auth})
        queue = agent.queue(signal.inputs["deploy_queue_id"], auto_create=False)
        queue.post({"body": "not json", "ttl": 600})
        queue.post({"body": {"deploy_status_code": 0}, "ttl": 600})
        assert backend.collect_signals(signal) == [{"deploy_status_code": 0}]
        queue.post({"body": "[1]", "ttl": 600})
        with pytest.raises(InvalidSignal):
            backend.collect_signals(signal)
        assert json.loads(signal.locator["signed_url"])["methods"] == ["POST"]
        backend.revoke(signal)
