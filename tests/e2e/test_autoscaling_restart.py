"""An engine stopped while a group resizes: the next engine finishes the resize (the child's
update is a traversal like any other), and the group scales again by the next signal, its size
and members as the child holds them."""

from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path
from typing import Any

from thermik.api.boundary import RequestContext, ResourceQuery, StackIdentity, StackRequest
from thermik.conf.settings import Settings
from thermik.errors import ThermikError
from thermik.orchestration import Orchestrator
from thermik.service import build_orchestration_service

CTX = RequestContext(tenant="t1", user="tester")
DEADLINE = 60.0
SLOW = {"type": "OS::Heat::TestResource", "properties": {"action_wait_secs": {"create": 3}}}
TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "group": {
            "type": "OS::Heat::AutoScalingGroup",
            "properties": {"min_size": 1, "max_size": 10, "desired_capacity": 2, "resource": SLOW},
        },
        "up": {
            "type": "OS::Heat::ScalingPolicy",
            "properties": {
                "auto_scaling_group_id": {"get_resource": "group"},
                "adjustment_type": "change_in_capacity",
                "scaling_adjustment": 2,
            },
        },
    },
    "outputs": {
        "size": {"value": {"get_attr": ["group", "current_size"]}},
        "refs": {"value": {"get_attr": ["group", "refs"]}},
    },
}


def child_of(service: Orchestrator, stack: StackIdentity) -> StackIdentity:
    physical = service.show_resource(CTX, stack, "group").physical_resource_id
    assert physical is not None
    child = service.store.get_stack(physical)
    return StackIdentity(child.name, child.id)


def status(service: Orchestrator, stack: StackIdentity) -> str:
    view = service.show_stack(CTX, stack, resolve_outputs=False)
    return f"{view.action}_{view.status}"


def outputs(service: Orchestrator, stack: StackIdentity) -> dict[str, Any]:
    view = service.show_stack(CTX, stack)
    return {output.key: output.value for output in view.outputs or ()}


def signal_quietly(service: Orchestrator, stack: StackIdentity) -> None:
    # The engine stops under it: its caller learns that it failed.
    with contextlib.suppress(ThermikError, TimeoutError):
        service.signal_resource(CTX, stack, "up", None)


def test_a_resize_interrupted_by_a_stop_is_finished_by_the_next_engine(tmp_path: Path) -> None:
    settings = Settings.embedded(tmp_path / "state")
    service = build_orchestration_service(settings)
    try:
        stack = service.create_stack(CTX, StackRequest(name="grown", template=TEMPLATE))
        service.runtime.wait(stack.id, DEADLINE)
        assert status(service, stack) == "CREATE_COMPLETE"
        child = child_of(service, stack)
        signalling = threading.Thread(target=signal_quietly, args=(service, stack))
        signalling.start()
        deadline = time.monotonic() + DEADLINE
        while status(service, child) != "UPDATE_IN_PROGRESS":
            assert time.monotonic() < deadline, "the resize never started"
            time.sleep(0.05)
    finally:
        service.close()
    signalling.join(timeout=10)
    assert not signalling.is_alive(), "the signal's sender still waits for a stopped engine"

    again = build_orchestration_service(settings)
    try:
        deadline = time.monotonic() + DEADLINE
        while status(again, child) == "UPDATE_IN_PROGRESS":
            assert time.monotonic() < deadline, "the resize was never finished"
            time.sleep(0.05)
        assert status(again, child) == "UPDATE_COMPLETE"
        assert len(again.list_resources(CTX, child, ResourceQuery())) == 4
        # The stored attributes are those of before the stop until the next signal or update
        # (the interrupted signal could not store them again).

        again.signal_resource(CTX, stack, "up", None)
        assert status(again, child) == "UPDATE_COMPLETE"
        shown = outputs(again, stack)
        assert shown["size"] == 6
        assert len([ref for ref in shown["refs"] if ref]) == 6
    finally:
        again.close()
