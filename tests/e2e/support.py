"""What the end-to-end tests share: templates and client-side waiting."""

from __future__ import annotations

import time
from typing import Any

from heatclient import exc as heat_exc

TENANT = "tenant1"
#: How long a client waits for an operation of these small stacks before the test fails.
DEADLINE = 60.0

#: Two test resources in a chain, a parameter and an output depending on both.
TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "description": "Two resources in a chain",
    "parameters": {"word": {"type": "string", "default": "hello"}},
    "resources": {
        "first": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_param": "word"}},
            "metadata": {"role": "first"},
        },
        "second": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_attr": ["first", "output"]}},
        },
    },
    "outputs": {"echo": {"description": "the echo", "value": {"get_attr": ["second", "output"]}}},
}

#: A wait condition that completes when its handle is signalled.
WAIT_TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "handle": {"type": "OS::Heat::WaitConditionHandle"},
        "waiter": {
            "type": "OS::Heat::WaitCondition",
            "properties": {"handle": {"get_resource": "handle"}, "timeout": 120},
        },
    },
    "outputs": {"data": {"value": {"get_attr": ["waiter", "data"]}}},
}


def slow_template(update_secs: float) -> dict[str, Any]:
    """One test resource whose update takes ``update_secs``: something to cancel."""
    return {
        "heat_template_version": "2018-08-31",
        "parameters": {"word": {"type": "string", "default": "before"}},
        "resources": {
            "sleeper": {
                "type": "OS::Heat::TestResource",
                "properties": {
                    "value": {"get_param": "word"},
                    "action_wait_secs": {"update": update_secs},
                },
            }
        },
        "outputs": {"word": {"value": {"get_attr": ["sleeper", "output"]}}},
    }


def settled(heat: Any, stack: str, deadline: float = DEADLINE) -> Any:
    """Poll like a client until the stack's operation ends; None once it is gone (404)."""
    start = time.monotonic()
    while time.monotonic() - start < deadline:
        try:
            found = heat.stacks.get(stack)
        except heat_exc.HTTPNotFound:
            return None
        if found.status != "IN_PROGRESS":
            return found
        time.sleep(0.05)
    raise AssertionError(f"stack {stack} did not settle in {deadline}s")


def outputs_of(stack: Any) -> dict[str, Any]:
    """A shown stack's outputs by key."""
    return {output["output_key"]: output["output_value"] for output in stack.outputs}


SERVER_TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "server": {
            "type": "OS::Heat::DeployedServer",
            "properties": {"software_config_transport": "POLL_TEMP_URL"},
            "metadata": {"role": "web"},
        },
    },
    "outputs": {"agent": {"value": {"get_attr": ["server", "os_collect_config"]}}},
}


def server_stack(heat: Any, name: str) -> tuple[str, str]:
    """A stack with one DeployedServer: the server's id and the URL its agent polls."""
    stack_id = str(heat.stacks.create(stack_name=name, template=SERVER_TEMPLATE)["stack"]["id"])
    stack = settled(heat, stack_id)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    server_id = heat.resources.get(name, "server").physical_resource_id
    agent = heat.stacks.output_show(name, "agent")["output"]["output_value"]
    return server_id, agent["request"]["metadata_url"]
