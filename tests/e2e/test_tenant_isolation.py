"""Tenants are isolated on the real service: another tenant's stacks do not exist for you.

Two heatclients, one per tenant endpoint of the same server: whatever tenant A tries on B's
stack (by name, by id, or by its canonical ``name/id``) is a 404, and B's stack is untouched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from heatclient import client as heat_client
from heatclient import exc as heat_exc

from tests.e2e.support import TEMPLATE, settled
from thermik.orchestration import Orchestrator

#: A stack with something to signal, metadata to read and an output.
PRIVATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "handle": {"type": "OS::Heat::WaitConditionHandle", "metadata": {"k": "v"}},
    },
    "outputs": {"data": {"value": {"get_resource": "handle"}}},
}


def client(root: str, tenant: str) -> Any:
    return heat_client.Client("1", endpoint=f"{root}/v1/{tenant}", token="tok")


def attempts(stack: str) -> dict[str, Callable[[Any], object]]:
    """Everything a tenant could try on ``stack``."""
    return {
        "show": lambda h: h.stacks.get(stack),
        "show unresolved": lambda h: h.stacks.get(stack, resolve_outputs=False),
        "update": lambda h: h.stacks.update(stack, template=TEMPLATE),
        "patch": lambda h: h.stacks.update(stack, existing=True, parameters={}),
        "preview update": lambda h: h.stacks.preview_update(stack, template=TEMPLATE),
        "delete": lambda h: h.stacks.delete(stack),
        "abandon": lambda h: h.stacks.abandon(stack),
        "export": lambda h: h.stacks.export(stack),
        "template": lambda h: h.stacks.template(stack),
        "environment": lambda h: h.stacks.environment(stack),
        "files": lambda h: h.stacks.files(stack),
        "outputs": lambda h: h.stacks.output_list(stack),
        "output": lambda h: h.stacks.output_show(stack, "data"),
        "suspend": lambda h: h.actions.suspend(stack),
        "check": lambda h: h.actions.check(stack),
        "cancel": lambda h: h.actions.cancel_update(stack),
        "snapshot": lambda h: h.stacks.snapshot(stack, "mine"),
        "snapshots": lambda h: h.stacks.snapshot_list(stack),
        "resources": lambda h: h.resources.list(stack),
        "resource": lambda h: h.resources.get(stack, "handle"),
        "metadata": lambda h: h.resources.metadata(stack, "handle"),
        "signal": lambda h: h.resources.signal(stack, "handle", data={"status": "FAILURE"}),
        "mark unhealthy": lambda h: h.resources.mark_unhealthy(stack, "handle", True, "x"),
        "events": lambda h: h.events.list(stack),
        "resource events": lambda h: h.events.list(stack, resource_name="handle"),
    }


def outcome(attempt: Callable[[Any], object], heat: Any) -> str:
    """``not found`` when ``attempt`` got Heat's 404 for a missing stack; else what happened."""
    try:
        attempt(heat)
    except heat_exc.HTTPNotFound as exc:
        return "not found" if "could not be found" in str(exc) else str(exc)
    except heat_exc.HTTPException as exc:
        return f"{exc.code}: {exc}"
    return "allowed"


@pytest.mark.parametrize("form", ["name", "id", "name/id"])
def test_another_tenants_stack_does_not_exist(
    form: str, shared_root: str, shared_service: Orchestrator, own_tenant: str
) -> None:
    owner = client(shared_root, f"{own_tenant}-b")
    intruder = client(shared_root, f"{own_tenant}-a")
    stack_id = owner.stacks.create(stack_name="private", template=PRIVATE)["stack"]["id"]
    assert settled(owner, stack_id).stack_status == "CREATE_COMPLETE"
    events_before = [e.id for e in owner.events.list(stack_id)]
    stack = {"name": "private", "id": stack_id, "name/id": f"private/{stack_id}"}[form]

    outcomes = {what: outcome(attempt, intruder) for what, attempt in attempts(stack).items()}
    assert outcomes == dict.fromkeys(outcomes, "not found")
    assert list(intruder.stacks.list()) == []
    assert list(intruder.stacks.list(show_deleted=True)) == []
    with pytest.raises(heat_exc.HTTPForbidden):
        list(intruder.stacks.list(global_tenant=True))
    with pytest.raises(heat_exc.HTTPConflict, match="already exists"):
        owner.stacks.create(stack_name="private", template=TEMPLATE)
    # The same name is free in the intruder's own tenant.
    own_id = intruder.stacks.create(stack_name="private", template=TEMPLATE)["stack"]["id"]
    assert own_id != stack_id

    untouched = owner.stacks.get(stack_id)
    assert untouched.stack_status == "CREATE_COMPLETE"
    assert [e.id for e in owner.events.list(stack_id)] == events_before
    assert owner.resources.metadata("private", "handle") == {"k": "v"}
    stored = shared_service.store.get_stack(stack_id)
    assert (stored.tenant, stored.action, stored.status) == (
        f"{own_tenant}-b",
        "CREATE",
        "COMPLETE",
    )


def test_software_configs_and_deployments_are_per_tenant(
    shared_root: str, own_tenant: str
) -> None:
    owner = client(shared_root, f"{own_tenant}-b")
    intruder = client(shared_root, f"{own_tenant}-a")
    config = owner.software_configs.create(name="c", group="script", config="true")
    deployment = owner.software_deployments.create(
        config_id=config.id, server_id="srv", action="CREATE", status="IN_PROGRESS"
    )
    for attempt in (
        lambda: intruder.software_configs.get(config.id),
        lambda: intruder.software_configs.delete(config.id),
        lambda: intruder.software_deployments.get(deployment.id),
        lambda: intruder.software_deployments.update(deployment.id, status="FAILED"),
        lambda: intruder.software_deployments.delete(deployment.id),
        lambda: intruder.software_deployments.create(
            config_id=config.id, server_id="srv", action="CREATE"
        ),
    ):
        with pytest.raises(heat_exc.HTTPNotFound):
            attempt()
    assert intruder.software_configs.list() == []
    assert intruder.software_deployments.list() == []
    assert intruder.software_deployments.metadata(server_id="srv") == []
    assert owner.software_deployments.get(deployment.id).status == "IN_PROGRESS"
    assert [entry["id"] for entry in owner.software_deployments.metadata(server_id="srv")] == [
        config.id
    ]
