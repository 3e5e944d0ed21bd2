"""The swift backend against a real Swift (tempauth on loopback in CI)."""

from __future__ import annotations

import datetime
import urllib.request
import uuid

import pytest
import swiftclient

from tests.delivery_services import swift_settings
from thermik.delivery.base import ServerRef
from thermik.delivery.impl_swift import SwiftBackend, connect
from thermik.errors import DeliveryRejected

pytestmark = pytest.mark.functional


def test_agent_can_head_then_get_and_parse_last_modified() -> None:
    with SwiftBackend(swift_settings()) as backend:
        endpoint = backend.provision(ServerRef(str(uuid.uuid4())))
        backend.publish(endpoint, {"deployments": [], "thermik-generation": 3})
        url = endpoint.collector_settings["metadata_url"]
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=10) as r:
            # os-collect-config's request collector parses exactly this format or crashes.
            datetime.datetime.strptime(r.headers["Last-Modified"], "%a, %d %b %Y %H:%M:%S %Z")
        backend.revoke(endpoint)


def test_generation_travels_as_object_metadata() -> None:
    settings = swift_settings()
    with SwiftBackend(settings) as backend:
        endpoint = backend.provision(ServerRef(str(uuid.uuid4())))
        backend.publish(endpoint, {"thermik-generation": 7})
        conn = connect(settings)
        headers = conn.head_object(endpoint.locator["container"], endpoint.locator["object"])
        assert headers["x-object-meta-generation"] == "7"
        conn.close()
        backend.revoke(endpoint)
        with pytest.raises(swiftclient.ClientException):
            connect(settings).head_container(endpoint.locator["container"])


def test_wrong_credentials_are_rejected_not_retried() -> None:
    settings = swift_settings()
    wrong = type(settings)(
        auth_url=settings.auth_url,
        auth_version=settings.auth_version,
        username=settings.username,
        password="not-the-password",
        project_name=settings.project_name,
    )
    with SwiftBackend(wrong) as backend, pytest.raises(DeliveryRejected):
        backend.provision(ServerRef("srv"))
