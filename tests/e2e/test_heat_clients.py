"""The unmodified python-heatclient and ``openstack stack`` CLI against the real engine."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from heatclient import client as heat_client
from heatclient import exc as heat_exc

TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "parameters": {"word": {"type": "string", "default": "hello"}},
    "resources": {
        "first": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_param": "word"}},
        },
        "second": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_attr": ["first", "output"]}},
        },
    },
    "outputs": {"echo": {"description": "the echo", "value": {"get_attr": ["second", "output"]}}},
}
DEADLINE = 60.0


@pytest.fixture
def heat(endpoint: str) -> Any:
    return heat_client.Client("1", endpoint=endpoint, token="anything")


def settled(heat: Any, stack_id: str) -> Any:
    """Poll like a client until the stack's operation ends (a deleted stack may 404)."""
    start = time.monotonic()
    while time.monotonic() - start < DEADLINE:
        try:
            stack = heat.stacks.get(stack_id)
        except heat_exc.HTTPNotFound:
            return None
        if stack.status != "IN_PROGRESS":
            return stack
        time.sleep(0.1)
    raise AssertionError(f"stack {stack_id} did not settle in {DEADLINE}s")


def test_heatclient_create_outputs_update_delete(heat: Any) -> None:
    created = heat.stacks.create(stack_name="web", template=TEMPLATE, parameters={"word": "hi"})
    stack_id = created["stack"]["id"]
    stack = settled(heat, stack_id)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    assert {o["output_key"]: o["output_value"] for o in stack.outputs} == {"echo": "hi"}
    assert heat.stacks.output_show("web", "echo")["output"]["output_value"] == "hi"
    resources = {r.resource_name: r for r in heat.resources.list("web")}
    assert resources["first"].required_by == ["second"]
    events = heat.events.list("web")
    assert events[-1].resource_status == "CREATE_COMPLETE"
    heat.stacks.update(stack_id, existing=True, parameters={"word": "bye"})
    stack = settled(heat, stack_id)
    assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
    assert stack.outputs[0]["output_value"] == "bye"
    with pytest.raises(heat_exc.HTTPConflict, match="already exists"):
        heat.stacks.create(stack_name="web", template=TEMPLATE)
    heat.stacks.delete(stack_id)
    stack = settled(heat, stack_id)
    assert stack is None or stack.stack_status == "DELETE_COMPLETE"
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.stacks.get("web")


def test_heatclient_bad_input(heat: Any) -> None:
    bad = {**TEMPLATE, "resources": {"x": {"type": "OS::No::Such"}}}
    with pytest.raises(heat_exc.HTTPBadRequest, match=r"resources\.x\.type"):
        heat.stacks.create(stack_name="bad", template=bad)
    assert heat.stacks.list() is not None
    assert list(heat.stacks.list()) == []


def test_openstack_cli_create_wait(endpoint: str, tmp_path: Path) -> None:
    template = tmp_path / "t.yaml"
    template.write_text(yaml.safe_dump(TEMPLATE), encoding="utf-8")
    base = [
        str(Path(sys.executable).parent / "openstack"),
        "--os-auth-type",
        "none",
        "--os-endpoint",
        endpoint,
    ]
    created = subprocess.run(
        [*base, "stack", "create", "-t", str(template), "--wait", "--poll", "1", "cli"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert created.returncode == 0, created.stderr
    assert "CREATE_COMPLETE" in created.stdout
    shown = subprocess.run(
        [*base, "stack", "show", "cli", "-f", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    document = json.loads(shown.stdout)
    assert document["stack_status"] == "CREATE_COMPLETE"
    assert document["outputs"][0]["output_value"] == "hello"
