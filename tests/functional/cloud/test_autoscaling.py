"""OS::Heat::AutoScalingGroup of OS::Nova::Server members on the real Nova (fake virt driver),
scaled 3 -> 6 -> 2 by OS::Heat::ScalingPolicy signals POSTed to their signed ``alarm_url``
(no credentials), then deleted leaving no server or port; and examples/cloud/autoscaled.yaml
created, scaled once and deleted."""

from __future__ import annotations

import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from tests.functional.cloud.leftovers import leftovers
from tests.functional.cloud.nova_net import server_network
from thermik.api.boundary import StackIdentity
from thermik.persistence.resource_values import EventQuery

pytestmark = pytest.mark.functional

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "cloud" / "autoscaled.yaml"

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  image: {type: string}
  flavor: {type: string}
  network: {type: string}
  desired: {type: number, default: 3}
  script: {type: string, default: "#!/bin/sh\necho v1\n"}
resources:
  group:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 1
      max_size: 8
      desired_capacity: {get_param: desired}
      rolling_updates: {max_batch_size: 1, min_in_service: 1}
      resource:
        type: OS::Nova::Server
        properties:
          image: {get_param: image}
          flavor: {get_param: flavor}
          networks: [{network: {get_param: network}}]
          user_data_format: RAW
          user_data: {get_param: script}
  up:
    type: OS::Heat::ScalingPolicy
    properties:
      auto_scaling_group_id: {get_resource: group}
      adjustment_type: percent_change_in_capacity
      scaling_adjustment: 100
  down:
    type: OS::Heat::ScalingPolicy
    properties:
      auto_scaling_group_id: {get_resource: group}
      adjustment_type: exact_capacity
      scaling_adjustment: 2
outputs:
  size: {value: {get_attr: [group, current_size]}}
  servers: {value: {get_attr: [group, refs]}}
  addresses: {value: {get_attr: [group, outputs_list, first_address]}}
  up_url: {value: {get_attr: [up, alarm_url]}}
  down_url: {value: {get_attr: [down, alarm_url]}}
"""


def post(url: str) -> None:
    request = urllib.request.Request(url, data=b'{"current": "alarm"}', method="POST")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=300) as response:
        assert response.status == 200


def active_servers(env: CloudEnv, ids: list[str]) -> list[str]:
    conn = env.connect()
    return [s.id for s in conn.compute.servers() if s.id in ids and s.status == "ACTIVE"]


def rolling_batches(engine: CloudEngine, child: str) -> int:
    """How many updates of the group's child ran after its resizes (one per batch)."""
    events = engine.engine.store.list_events(EventQuery(child))
    started = [e for e in events if e.resource_status_reason == "Stack UPDATE started"]
    return len(started) - 2  # the two resizes


def child_id(engine: CloudEngine, stack: StackIdentity) -> str:
    physical = engine.resource(stack, "group").physical_resource_id
    assert physical is not None
    return physical


def test_servers_scale_3_to_6_to_2_by_signed_urls(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    assert cloud_engine.engine.delivery is not None
    cloud_engine.engine.delivery.serve_on_loopback()  # type: ignore[attr-defined]
    conn = cloud_env.connect()
    with server_network(cloud_env, "asg") as net:
        started = time.monotonic()
        stack = cloud_engine.create(
            f"asg-{uuid.uuid4().hex[:8]}",
            TEMPLATE,
            image=cloud_env.image,
            flavor=cloud_env.flavor,
            network=net.network_name,
        )
        view = cloud_engine.wait(stack)
        assert view.status == "COMPLETE", view.status_reason
        created = time.monotonic() - started
        outputs: dict[str, Any] = cloud_engine.outputs(stack)
        assert outputs["size"] == 3
        assert len(active_servers(cloud_env, outputs["servers"])) == 3
        assert all(a.startswith(net.cidr.rsplit(".", 1)[0]) for a in outputs["addresses"])
        members = child_id(cloud_engine, stack)

        started = time.monotonic()
        post(outputs["up_url"])  # answered once the group has resized
        grown = time.monotonic() - started
        outputs = cloud_engine.outputs(stack)
        assert outputs["size"] == 6
        assert len(set(outputs["servers"])) == 6
        assert len(active_servers(cloud_env, outputs["servers"])) == 6

        started = time.monotonic()
        post(outputs["down_url"])
        shrunk = time.monotonic() - started
        kept = cloud_engine.outputs(stack)
        assert kept["size"] == 2
        assert kept["servers"] == outputs["servers"][:2], "the newest servers went first"
        assert len(active_servers(cloud_env, outputs["servers"])) == 2

        # A new user_data replaces the servers, one at a time, one always in service.
        started = time.monotonic()
        cloud_engine.update(stack, desired=2, script="#!/bin/sh\necho v2\n")
        view = cloud_engine.wait(stack)
        assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
        rolled = time.monotonic() - started
        replaced = cloud_engine.outputs(stack)["servers"]
        assert len(replaced) == 2
        assert not set(replaced) & set(outputs["servers"])
        assert len(active_servers(cloud_env, replaced)) == 2
        assert rolling_batches(cloud_engine, members) >= 2
        print(
            f"\nautoscaling on loopback Nova: create 3 servers {created:.1f} s, "
            f"3 -> 6 by alarm_url {grown:.1f} s, 6 -> 2 by alarm_url {shrunk:.1f} s, "
            f"rolling replacement of 2 (batches of 1) {rolled:.1f} s"
        )
        outputs = {"servers": [*outputs["servers"], *replaced]}

        view = cloud_engine.delete(stack)
        assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
        assert not leftovers(conn, members)
        assert not active_servers(cloud_env, outputs["servers"])


def test_the_autoscaled_example_creates_and_scales(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    assert cloud_engine.engine.delivery is not None
    cloud_engine.engine.delivery.serve_on_loopback()  # type: ignore[attr-defined]
    conn = cloud_env.connect()
    with server_network(cloud_env, "asgx") as net:
        stack = cloud_engine.create(
            f"asgx-{uuid.uuid4().hex[:8]}",
            EXAMPLE.read_text(encoding="utf-8"),
            image=cloud_env.image,
            flavor=cloud_env.flavor,
            network=net.network_name,
        )
        view = cloud_engine.wait(stack)
        assert view.status == "COMPLETE", view.status_reason
        outputs = cloud_engine.outputs(stack)
        assert outputs["size"] == 1
        members = child_id(cloud_engine, stack)
        post(outputs["scale_up_url"])
        assert cloud_engine.outputs(stack)["size"] == 2
        post(outputs["scale_up_url"])  # within scale_up's 60 s cooldown: no change
        assert cloud_engine.outputs(stack)["size"] == 2
        view = cloud_engine.delete(stack)
        assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
        assert not leftovers(conn, members)
