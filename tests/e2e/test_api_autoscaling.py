"""Autoscaling through the REST API, cloud-free: an ``OS::Heat::AutoScalingGroup`` of
``OS::Heat::RandomString`` members scaled by ``OS::Heat::ScalingPolicy`` signals, sent with
python-heatclient (the API's resource signal) and POSTed without credentials to the policy's
``alarm_url``; cooldowns are respected; an update of the members' definition replaces them in
``rolling_updates`` batches."""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from heatclient import client as heat_client

from tests.e2e.api_process import ApiProcess
from tests.e2e.support import outputs_of, settled

DEADLINE = 60.0


def template(
    *, up_cooldown: int = 0, batch: int = 1, length: int = 8, member: Any = None
) -> dict[str, Any]:
    """A group of 3 (1..10) random strings (or ``member``s), a +3 policy and an exactly-2
    policy."""
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "group": {
                "type": "OS::Heat::AutoScalingGroup",
                "properties": {
                    "min_size": 1,
                    "max_size": 10,
                    "desired_capacity": 3,
                    "resource": member
                    or {"type": "OS::Heat::RandomString", "properties": {"length": length}},
                    "rolling_updates": {"max_batch_size": batch, "min_in_service": 1},
                },
            },
            "up": {
                "type": "OS::Heat::ScalingPolicy",
                "properties": {
                    "auto_scaling_group_id": {"get_resource": "group"},
                    "adjustment_type": "change_in_capacity",
                    "scaling_adjustment": 3,
                    "cooldown": up_cooldown,
                },
            },
            "down": {
                "type": "OS::Heat::ScalingPolicy",
                "properties": {
                    "auto_scaling_group_id": {"get_resource": "group"},
                    "adjustment_type": "exact_capacity",
                    "scaling_adjustment": 2,
                },
            },
        },
        "outputs": {
            "size": {"value": {"get_attr": ["group", "current_size"]}},
            "values": {"value": {"get_attr": ["group", "outputs_list", "value"]}},
            "by_name": {"value": {"get_attr": ["group", "outputs", "value"]}},
            "refs": {"value": {"get_attr": ["group", "refs"]}},
            "up_url": {"value": {"get_attr": ["up", "alarm_url"]}},
            "down_url": {"value": {"get_attr": ["down", "alarm_url"]}},
        },
    }


@pytest.fixture
def heat(shared_root: str, own_tenant: str) -> Any:
    return heat_client.Client("1", endpoint=f"{shared_root}/v1/{own_tenant}", token="anything")


def create(heat: Any, name: str, body: dict[str, Any]) -> str:
    stack_id = str(heat.stacks.create(stack_name=name, template=body)["stack"]["id"])
    stack = settled(heat, stack_id)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    return stack_id


def members(heat: Any, stack_id: str) -> list[Any]:
    """The group's members (the child stack's resources), once the child settled."""
    child_id = heat.resources.get(stack_id, "group").physical_resource_id
    child = settled(heat, child_id)
    assert child.stack_status.endswith("_COMPLETE"), child.stack_status_reason
    return list(heat.resources.list(child_id))


def scaled_to(heat: Any, stack_id: str, size: int) -> list[Any]:
    """Wait until the group's child holds ``size`` complete members; they."""
    deadline = time.monotonic() + DEADLINE
    while True:
        found = members(heat, stack_id)
        if len(found) == size and all(m.resource_status.endswith("_COMPLETE") for m in found):
            return found
        assert time.monotonic() < deadline, f"never {size} members: {len(found)}"
        time.sleep(0.05)


def post(url: str, body: bytes = b"") -> int:
    request = urllib.request.Request(url, data=body, method="POST")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as response:
        return int(response.status)


def refused(request: urllib.request.Request) -> int:
    """The status of a request the server refuses."""
    with pytest.raises(urllib.error.HTTPError) as error:
        urllib.request.urlopen(request, timeout=10)
    error.value.close()
    return int(error.value.code)


def group_reasons(heat: Any, stack_id: str) -> list[str]:
    events = heat.events.list(stack_id, resource_name="group")
    return [e.resource_status_reason for e in events if e.resource_status_reason]


def test_signals_scale_3_to_6_to_2(heat: Any) -> None:
    stack_id = create(heat, "scaled", template())
    assert len(scaled_to(heat, stack_id, 3)) == 3
    outputs = outputs_of(heat.stacks.get(stack_id))
    assert outputs["size"] == 3
    assert len(outputs["values"]) == 3
    assert all(len(value) == 8 for value in outputs["values"])
    assert sorted(outputs["by_name"]) == ["0", "1", "2"]

    heat.resources.signal(stack_id, "up")  # through the REST API's resource signal
    six = scaled_to(heat, stack_id, 6)
    assert sorted(m.resource_name for m in six) == ["0", "1", "2", "3", "4", "5"]
    outputs = outputs_of(heat.stacks.get(stack_id))
    assert outputs["size"] == 6
    assert len(set(outputs["values"])) == 6

    assert post(outputs["down_url"], b'{"current": "alarm"}') == 200  # no credentials
    two = scaled_to(heat, stack_id, 2)
    assert sorted(m.resource_name for m in two) == ["0", "1"]  # the newest went first
    outputs = outputs_of(heat.stacks.get(stack_id))
    assert outputs["size"] == 2
    assert outputs["values"] == outputs["values"][:2]
    assert any("scaling from 6 to 2" in reason for reason in group_reasons(heat, stack_id))

    # A stack update that sets desired_capacity resizes to it (as Heat does).
    heat.stacks.update(stack_id, template=template())
    assert settled(heat, stack_id).stack_status == "UPDATE_COMPLETE"
    assert len(scaled_to(heat, stack_id, 3)) == 3


def test_alarm_url_is_signed(heat: Any) -> None:
    stack_id = create(heat, "signed", template())
    url = outputs_of(heat.stacks.get(stack_id))["up_url"]
    assert "temp_url_sig=" in url
    forged = url.replace("temp_url_sig=", "temp_url_sig=0")
    assert refused(urllib.request.Request(forged, data=b"", method="POST")) == 403
    assert refused(urllib.request.Request(url)) == 403  # GET: the URL allows POST only
    assert len(scaled_to(heat, stack_id, 3)) == 3


def test_cooldown_is_respected(heat: Any) -> None:
    stack_id = create(heat, "cooling", template(up_cooldown=3600))
    up_url = outputs_of(heat.stacks.get(stack_id))["up_url"]
    assert post(up_url) == 200
    assert len(scaled_to(heat, stack_id, 6)) == 6
    assert post(up_url) == 200  # accepted, but the group is in its cooldown
    assert len(members(heat, stack_id)) == 6
    assert any("in cooldown (3600 s)" in reason for reason in group_reasons(heat, stack_id))
    assert outputs_of(heat.stacks.get(stack_id))["size"] == 6


def test_rolling_update_replaces_members_in_batches(heat: Any) -> None:
    stack_id = create(heat, "rolling", template(batch=2))
    heat.resources.signal(stack_id, "up")
    old = {m.resource_name: m.physical_resource_id for m in scaled_to(heat, stack_id, 6)}
    heat.stacks.update(stack_id, template=template(batch=2, length=12))
    stack = settled(heat, stack_id)
    assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
    new = {m.resource_name: m.physical_resource_id for m in scaled_to(heat, stack_id, 3)}
    assert all(len(value) == 12 for value in outputs_of(heat.stacks.get(stack_id))["values"])
    assert not set(new.values()) & set(old.values())
    child_id = heat.resources.get(stack_id, "group").physical_resource_id
    started = [
        e.resource_status_reason
        for e in heat.events.list(child_id)
        if e.resource_status_reason == "Stack UPDATE started"
    ]
    # One child update scaled to 6; then 6 old members became 3 new ones 2 at a time (the
    # first batch also dropped the 3 members beyond the new size): more child updates.
    assert len(started) >= 3, started


def test_thermik_api_serves_the_alarm_url_and_the_signal_url(tmp_path: Path) -> None:
    """``thermik-api`` (the console script) serves the policy's URLs on its own listener."""
    config = tmp_path / "thermik.conf"
    config.write_text(
        f"[DEFAULT]\nstate_dir = {tmp_path / 'state'}\n[api]\nauth_strategy = noauth\n",
        encoding="utf-8",
    )
    api = ApiProcess(config)
    try:
        heat = heat_client.Client("1", endpoint=f"{api.root}/v1/t1", token="t")
        stack_id = create(heat, "served", template())
        outputs = outputs_of(heat.stacks.get(stack_id))
        assert outputs["up_url"].startswith(f"{api.root}/delivery/v1/resource-signal/")
        assert post(outputs["up_url"]) == 200
        assert len(scaled_to(heat, stack_id, 6)) == 6
        signal_url = heat.resources.get(stack_id, "down").attributes["signal_url"]
        assert signal_url == (f"{api.root}/v1/t1/stacks/served/{stack_id}/resources/down/signal")
        assert post(signal_url) == 200  # the REST API's signal (noauth here)
        assert len(scaled_to(heat, stack_id, 2)) == 2
    finally:
        api.close()


MEMBER = """
heat_template_version: 2018-08-31
parameters:
  colour: {type: string}
resources:
  word: {type: OS::Heat::RandomString, properties: {length: 6}}
outputs:
  label: {value: {list_join: ['-', [{get_param: colour}, {get_attr: [word, value]}]]}}
"""


def test_template_resource_members_scale_and_show_their_outputs(heat: Any) -> None:
    body = template()
    body["resources"]["group"]["properties"]["resource"] = {
        "type": "member.yaml",
        "properties": {"colour": "red"},
    }
    body["outputs"]["labels"] = {"value": {"get_attr": ["group", "outputs_list", "label"]}}
    stack_id = str(
        heat.stacks.create(stack_name="members", template=body, files={"member.yaml": MEMBER})[
            "stack"
        ]["id"]
    )
    assert settled(heat, stack_id).stack_status == "CREATE_COMPLETE"
    assert len(outputs_of(heat.stacks.get(stack_id))["labels"]) == 3
    heat.resources.signal(stack_id, "up")
    assert len(scaled_to(heat, stack_id, 6)) == 6
    labels = outputs_of(heat.stacks.get(stack_id))["labels"]
    assert len(set(labels)) == 6
    assert all(label.startswith("red-") and len(label) == 10 for label in labels)


def test_a_signal_while_the_group_resizes_is_skipped(heat: Any) -> None:
    slow = {"type": "OS::Heat::TestResource", "properties": {"action_wait_secs": {"create": 2}}}
    body = template(member=slow)
    del body["outputs"]["values"], body["outputs"]["by_name"]
    stack_id = create(heat, "busy", body)
    child = heat.resources.get(stack_id, "group").physical_resource_id
    growing = threading.Thread(target=heat.resources.signal, args=(stack_id, "up"))
    growing.start()
    try:
        deadline = time.monotonic() + DEADLINE
        while heat.stacks.get(child).stack_status != "UPDATE_IN_PROGRESS":
            assert time.monotonic() < deadline, "the resize never started"
            time.sleep(0.05)
        heat.resources.signal(stack_id, "down")  # answered at once: the group is scaling
        assert heat.stacks.get(child).stack_status == "UPDATE_IN_PROGRESS"
    finally:
        growing.join(timeout=DEADLINE)
    assert len(scaled_to(heat, stack_id, 6)) == 6
    events = heat.events.list(stack_id, resource_name="down")
    assert any("already scaling" in (e.resource_status_reason or "") for e in events)


def test_the_groups_cooldown_counts_from_its_create(heat: Any) -> None:
    body = template()
    body["resources"]["group"]["properties"]["cooldown"] = 3600
    stack_id = create(heat, "fresh", body)
    heat.resources.signal(stack_id, "down")
    assert len(members(heat, stack_id)) == 3
    assert any("in cooldown (3600 s)" in reason for reason in group_reasons(heat, stack_id))
