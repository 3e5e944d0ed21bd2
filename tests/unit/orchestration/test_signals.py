"""Signals through the service: a wait condition completes when its handle is signalled."""

from __future__ import annotations

import time
from typing import Any

from tests.unit.orchestration.conftest import CTX, request, settle
from thermik.api.boundary import EventQuery
from thermik.orchestration import Orchestrator
from thermik.orchestration.versions import current_resources

TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "handle": {"type": "OS::Heat::WaitConditionHandle"},
        "wait": {
            "type": "OS::Heat::WaitCondition",
            "properties": {"handle": {"get_resource": "handle"}, "timeout": 60},
        },
    },
    "outputs": {"data": {"value": {"get_attr": ["wait", "data"]}}},
}


def test_a_signal_completes_the_wait(service: Orchestrator) -> None:
    stack = service.create_stack(CTX, request(template=TEMPLATE))
    deadline = time.monotonic() + 30
    while "handle" not in current_resources(service.store, service.store.get_stack(stack.id)):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    while service.show_resource(CTX, stack, "handle").status != "COMPLETE":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert service.show_stack(CTX, stack).status == "IN_PROGRESS"
    signal = {"status": "SUCCESS", "id": "1", "data": "ready", "reason": "booted"}
    service.signal_resource(CTX, stack, "handle", signal)
    view = settle(service, stack)
    assert (view.action, view.status) == ("CREATE", "COMPLETE"), view.status_reason
    outputs = {o.key: o.value for o in view.outputs or ()}
    assert "ready" in str(outputs["data"])
    handle_events = service.list_events(CTX, stack, EventQuery(resource_name="handle"))
    assert any("booted" in e.status_reason for e in handle_events)
