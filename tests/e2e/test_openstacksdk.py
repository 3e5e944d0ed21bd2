"""openstacksdk's orchestration proxy against the real engine, with ``auth_type='none'``.

The SDK discovers the API version first (``GET /v1``), which Thermik answers as Heat would
behind Keystone; then every call goes to the endpoint given, directly or as an override.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import openstack
import pytest

from tests.e2e.support import TEMPLATE
from thermik.orchestration import Orchestrator


def with_endpoint(endpoint: str) -> Any:
    return openstack.connect(
        auth_type="none", auth={"endpoint": endpoint}, load_yaml_config=False, load_envvars=False
    )


def with_endpoint_override(endpoint: str) -> Any:
    return openstack.connect(
        auth_type="none",
        auth={},
        orchestration_endpoint_override=endpoint,
        load_yaml_config=False,
        load_envvars=False,
    )


@pytest.fixture(params=[with_endpoint, with_endpoint_override])
def orchestration(
    request: pytest.FixtureRequest, shared_root: str, own_tenant: str
) -> Iterator[Any]:
    connect: Callable[[str], Any] = request.param
    conn = connect(f"{shared_root}/v1/{own_tenant}")
    try:
        yield conn.orchestration
    finally:
        conn.close()


# openstacksdk warns about its own pending removals.
@pytest.mark.filterwarnings("ignore::openstack.warnings.OpenStackDeprecationWarning")
@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_create_get_find_delete(
    orchestration: Any, shared_service: Orchestrator, own_tenant: str
) -> None:
    created = orchestration.create_stack(
        name="sdk", template=TEMPLATE, parameters={"word": "from-sdk"}, timeout_mins=5
    )
    stack = orchestration.wait_for_status(
        orchestration.get_stack(created.id),
        status="CREATE_COMPLETE",
        failures=["CREATE_FAILED"],
        interval=0.1,
        wait=60,
    )
    assert (stack.name, stack.status) == ("sdk", "CREATE_COMPLETE")
    assert stack.outputs == [
        {"output_key": "echo", "description": "the echo", "output_value": "from-sdk"}
    ]
    stored = shared_service.store.get_stack_by_name(own_tenant, "sdk")
    assert (stored.id, stored.timeout_mins) == (created.id, 5)

    found = orchestration.find_stack("sdk")
    assert found.id == created.id
    assert orchestration.find_stack("nothing-of-that-name") is None
    assert {r.name for r in orchestration.resources(found)} == {"first", "second"}

    orchestration.delete_stack(found)
    orchestration.wait_for_delete(found, interval=0.1, wait=60)
    gone = shared_service.store.get_stack(created.id, show_deleted=True)
    assert (gone.action, gone.status) == ("DELETE", "COMPLETE")
    assert orchestration.find_stack("sdk") is None
