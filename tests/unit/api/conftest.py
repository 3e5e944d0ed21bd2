"""Fixtures: the API app over the in-test MemoryService, in-process and on a live socket."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import falcon.testing
import pytest

from tests.loopback import serve
from tests.unit.api.memory_service import MemoryService
from thermik.api.app import make_app
from thermik.conf.settings import ApiSettings, LimitSettings

TENANT = "tenant1"
OTHER_TENANT = "tenant2"
HOST = "http://falconframework.org"
BODY_LIMIT = 64 * 1024

TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "description": "A test stack",
    "parameters": {
        "flavor": {"type": "string", "default": "m1.small", "description": "Flavor"},
        "password": {"type": "string", "hidden": True, "default": "s3cret"},
    },
    "resources": {
        "server": {"type": "OS::Heat::TestResource", "metadata": {"deployments": []}},
        "config": {"type": "OS::Heat::None", "depends_on": "server"},
    },
    "outputs": {
        "server_id": {"description": "The server", "value": {"get_resource": "server"}},
        "greeting": {"value": "hello"},
    },
}


def tenant_path(path: str, tenant: str = TENANT) -> str:
    """``/v1/<tenant><path>``."""
    return f"/v1/{tenant}{path}"


def local(url: str) -> str:
    """The path of an absolute URL the app produced."""
    assert url.startswith(HOST), url
    return url[len(HOST) :]


@pytest.fixture
def service() -> MemoryService:
    return MemoryService()


@pytest.fixture
def limits() -> LimitSettings:
    return LimitSettings(max_json_body_size=BODY_LIMIT)


@pytest.fixture
def client(service: MemoryService, limits: LimitSettings) -> falcon.testing.TestClient:
    return falcon.testing.TestClient(make_app(service, ApiSettings(), limits=limits))


class StackMaker:
    """Creates stacks through the API and returns their canonical paths."""

    def __init__(self, client: falcon.testing.TestClient) -> None:
        self.client = client

    def __call__(self, name: str = "s1", tenant: str = TENANT, **fields: Any) -> str:
        body = {"stack_name": name, "template": TEMPLATE, **fields}
        result = self.client.simulate_post(tenant_path("/stacks", tenant), json=body)
        assert result.status_code == 201, result.text
        return local(result.headers["location"])


@pytest.fixture
def make_stack(client: falcon.testing.TestClient) -> StackMaker:
    return StackMaker(client)


@pytest.fixture
def live_api(service: MemoryService, limits: LimitSettings) -> Iterator[str]:
    """The app on a free loopback port, served by threads; yields ``http://127.0.0.1:P``."""
    with serve(make_app(service, ApiSettings(), limits=limits)) as root:
        yield root
