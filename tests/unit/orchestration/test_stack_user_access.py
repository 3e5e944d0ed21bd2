"""A stack user reaches its stack through its stack user project, as Heat lets it: a server's
agent reads its resource's metadata and a handle's user signals, with a token of that project;
another stack user of the same project reaches nothing that is not its own.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.unit.orchestration.conftest import CTX, request, settle
from thermik.api.boundary import RequestContext
from thermik.errors import Forbidden, NotFound
from thermik.orchestration import Orchestrator
from thermik.orchestration.versions import current_resources
from thermik.resources.stack_users import AGENT_SERVER_KEY, STACK_USER_KEY

TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "handle": {"type": "OS::Heat::WaitConditionHandle", "metadata": {"role": "web"}},
        "wait": {
            "type": "OS::Heat::WaitCondition",
            "properties": {"handle": {"get_resource": "handle"}, "timeout": 60},
        },
    },
}
AGENT = RequestContext(tenant="stack-user-project", user="agent", roles=("heat_stack_user",))
NEIGHBOUR = RequestContext(tenant=AGENT.tenant, user="neighbour", roles=("heat_stack_user",))


def test_the_stack_user_project_finds_the_stack_and_no_other_does(
    service: Orchestrator,
) -> None:
    stack = service.create_stack(CTX, request(template=TEMPLATE))
    deadline = time.monotonic() + 30
    while "handle" not in current_resources(service.store, service.store.get_stack(stack.id)):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    stranger = RequestContext(tenant="another-project", roles=("heat_stack_user",))
    with pytest.raises(NotFound):
        service.resource_metadata(AGENT, stack, "handle")
    service.store.set_stack_user_project(stack.id, AGENT.tenant)
    resources = current_resources(service.store, service.store.get_stack(stack.id))
    service.store.set_resource_data(resources["handle"].id, STACK_USER_KEY, str(AGENT.user))

    assert service.resource_metadata(AGENT, stack, "handle")["role"] == "web"
    with pytest.raises(NotFound):
        service.resource_metadata(stranger, stack, "handle")
    with pytest.raises(Forbidden, match="resource:metadata"):
        service.resource_metadata(NEIGHBOUR, stack, "handle")
    with pytest.raises(Forbidden, match="resource:metadata"):
        service.resource_metadata(AGENT, stack, "wait")
    with pytest.raises(Forbidden, match="resource:signal"):
        service.signal_resource(NEIGHBOUR, stack, "handle", {"status": "SUCCESS", "id": "1"})
    while service.show_resource(CTX, stack, "handle").status != "COMPLETE":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    # What runs on the user's own server (a deployment naming it) is the user's too.
    handle = current_resources(service.store, service.store.get_stack(stack.id))["handle"]
    assert handle.physical_resource_id is not None
    service.store.set_resource_data(
        resources["wait"].id, AGENT_SERVER_KEY, handle.physical_resource_id
    )
    service.resource_metadata(AGENT, stack, "wait")
    with pytest.raises(Forbidden, match="resource:metadata"):
        service.resource_metadata(NEIGHBOUR, stack, "wait")
    service.signal_resource(AGENT, stack, "handle", {"status": "SUCCESS", "id": "1"})
    view = settle(service, stack)
    assert (view.action, view.status) == ("CREATE", "COMPLETE"), view.status_reason
