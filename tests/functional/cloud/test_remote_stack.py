"""``OS::Heat::Stack`` with ``context: {region_name: ...}`` makes its child through the catalog.

thermik-api runs in service mode (Keystone trusts to a service user of the test's own) and is
registered as the ``orchestration`` service of a region of the test's own on the loopback
cloud. The demo user creates a parent stack there whose ``OS::Heat::Stack`` names that region:
the engine finds the region's endpoint in the Keystone catalog and creates the child through
it, acting for the user with the parent's trust (a trust-scoped token, which the child reuses
rather than delegating again). The child's outputs come back as the parent's, an update and a
suspend/resume reach it in place, an unknown region and a child template the remote API
refuses fail the request with Heat's words, and deleting the parent deletes the child, with
the parent's trust still good until the parent itself is gone.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.api_process import ApiProcess
from tests.functional.cloud.agent_region import agent_region
from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.keystone_support import service_user
from tests.functional.cloud.test_server_agent_transports import Demo
from tests.functional.cloud.test_service_trusts import service_config
from thermik.conf.settings import TrusteeSettings

pytestmark = [
    pytest.mark.functional,
    pytest.mark.filterwarnings("ignore:'cgi' is deprecated:DeprecationWarning"),
]
WAIT = 90.0
CHILD = """
heat_template_version: 2013-05-23
resources:
  random1: {type: OS::Heat::RandomString}
outputs:
  remote_key: {value: {get_attr: [random1, value]}}
"""


def parent(region: str) -> dict[str, Any]:
    return {
        "heat_template_version": "2013-05-23",
        "resources": {
            "my_stack": {
                "type": "OS::Heat::Stack",
                "properties": {
                    "context": {"region_name": region},
                    "template": {"get_file": "child.yaml"},
                },
            }
        },
        "outputs": {"key": {"value": {"get_attr": ["my_stack", "outputs"]}}},
    }


@pytest.fixture
def trustee(cloud_env: CloudEnv) -> Iterator[TrusteeSettings]:
    with service_user(cloud_env) as settings:
        yield settings


@pytest.fixture
def served(
    cloud_env: CloudEnv, trustee: TrusteeSettings, tmp_path: Path
) -> Iterator[tuple[Demo, str, ApiProcess]]:
    """The demo user on a thermik-api that is the orchestration service of a region; the
    region's name."""
    api = ApiProcess(service_config(tmp_path, cloud_env, trustee))
    region = f"remote-{uuid.uuid4().hex[:8]}"
    try:
        with agent_region(cloud_env, region, {"orchestration": f"{api.root}/v1/%(tenant_id)s"}):
            yield Demo(api, cloud_env), region, api
    finally:
        api.close()


def create(demo: Demo, region: str, child: str = CHILD) -> Any:
    """The answer to creating the parent of a child in ``region``."""
    name = f"remote-{uuid.uuid4().hex[:8]}"
    body = {"stack_name": name, "template": parent(region), "files": {"child.yaml": child}}
    return demo.call("POST", json=body)


def path_of(answer: Any) -> str:
    """``/name/id`` of the stack a create answered with (its ``self`` link's tail)."""
    assert answer.status_code == 201, answer.text
    link = answer.json()["stack"]["links"][0]["href"]
    return "/" + "/".join(link.rsplit("/", 2)[-2:])


def resources(demo: Demo, stack: str) -> dict[str, str]:
    listed = demo.call("GET", f"{stack}/resources")
    assert listed.status_code == 200, listed.text
    return {r["resource_name"]: r["resource_type"] for r in listed.json()["resources"]}


def outputs(view: dict[str, Any]) -> dict[str, Any]:
    return {o["output_key"]: o.get("output_value") for o in view.get("outputs") or ()}


def settled(demo: Demo, stack: str, action: str) -> dict[str, Any]:
    view = demo.settled(stack, action)
    assert view["stack_status"] == f"{action}_COMPLETE", view["stack_status_reason"]
    return view


def physical_id(demo: Demo, stack: str) -> str:
    found = demo.call("GET", f"{stack}/resources/my_stack")
    assert found.status_code == 200, found.text
    return str(found.json()["resource"]["physical_resource_id"])


def child_path(demo: Demo, remote_id: str) -> str:
    view = demo.stack(f"/{remote_id}")
    return f"/{view['stack_name']}/{view['id']}"


def test_the_child_is_made_updated_suspended_and_deleted_through_the_regions_endpoint(
    served: tuple[Demo, str, ApiProcess],
) -> None:
    demo, region, api = served
    stack = path_of(create(demo, region))
    try:
        view = settled(demo, stack, "CREATE")
        remote_id = demo.physical_id(stack, "my_stack")
        child = child_path(demo, remote_id)
        assert resources(demo, child) == {"random1": "OS::Heat::RandomString"}
        key = outputs(view)["key"]["remote_key"]
        assert len(key) == 32
        assert outputs(demo.stack(child)) == {"remote_key": key}

        changed = CHILD.replace("random1", "random2")
        update = {"template": parent(region), "files": {"child.yaml": changed}}
        answer = demo.call("PUT", stack, json=update)
        assert answer.status_code == 202, answer.text
        time.sleep(0.5)  # the update's traversal starts behind the answer
        settled(demo, stack, "UPDATE")
        assert physical_id(demo, stack) == remote_id
        assert resources(demo, child) == {"random2": "OS::Heat::RandomString"}

        for action in ("suspend", "resume"):
            answer = demo.call("POST", f"{stack}/actions", json={action: None})
            assert answer.status_code == 200, answer.text
            time.sleep(0.5)
            settled(demo, stack, action.upper())
            assert demo.stack(child)["stack_status"] == f"{action.upper()}_COMPLETE"
    except AssertionError as error:
        raise AssertionError(f"{error}\n{api.rest_of_log()[-4000:]}") from None
    finally:
        demo.delete(stack)
    # Deleting the parent deleted the child (which left the parent's trust to the parent).
    gone = demo.call("GET", f"/{remote_id}")
    assert gone.status_code == 404 or gone.json()["stack"]["stack_status"] == "DELETE_COMPLETE"


def test_an_unknown_region_and_a_refused_child_fail_the_request_with_heats_words(
    served: tuple[Demo, str, ApiProcess],
) -> None:
    demo, region, _api = served
    answer = create(demo, "DARKHOLE")
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["message"] == (
        'Cannot establish connection to Heat endpoint at region "DARKHOLE" due to '
        '"public endpoint for orchestration service in DARKHOLE region not found"'
    )
    answer = create(demo, region, CHILD.replace("resources", "resource"))
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["message"] == (
        f'Failed validating stack template using Heat endpoint at region "{region}" due to '
        '"ERROR: The template section is invalid: resource"'
    )
