"""OS::Neutron::SecurityGroup and OS::Neutron::SecurityGroupRule on the real Neutron: a group
with rules beside Neutron's default egress rules, then an egress rule of its own replacing
them (updated in place); a rule resource replaced by a new port; check, delete, and an
unknown group refused at validation."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from tests.functional.cloud.neutron_leftovers import cleaned, leftovers
from thermik.errors import PropertyError

pytestmark = pytest.mark.functional

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  name: {type: string}
  rules: {type: json}
  port: {type: number, default: 80}
resources:
  group:
    type: OS::Neutron::SecurityGroup
    properties: {name: {get_param: name}, rules: {get_param: rules}}
  http:
    type: OS::Neutron::SecurityGroupRule
    properties:
      security_group: {get_resource: group}
      port_range_min: {get_param: port}
      port_range_max: {get_param: port}
      remote_ip_prefix: 10.0.0.0/8
outputs:
  group: {value: {get_resource: group}}
  http: {value: {get_resource: http}}
"""
INGRESS = [
    {"protocol": "tcp", "port_range_min": 22, "port_range_max": 22},
    {"protocol": "icmp", "remote_ip_prefix": "0.0.0.0/0"},
]
EGRESS = [{"direction": "egress", "protocol": "tcp", "port_range_min": 443, "port_range_max": 443}]


def rules_of(conn: Any, group_id: str) -> set[tuple[Any, ...]]:
    return {
        (r.direction, r.ether_type, r.protocol, r.port_range_min, r.remote_ip_prefix)
        for r in conn.network.security_group_rules(security_group_id=group_id)
    }


def test_a_security_group_and_a_rule_are_created_updated_checked_and_deleted(
    cloud_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    name = f"neutron-sg-{uuid.uuid4().hex[:8]}"
    with cleaned(cloud_engine, cloud_env, name) as conn:
        lifecycle(cloud_engine, conn, name)


def lifecycle(cloud_engine: CloudEngine, conn: Any, name: str) -> None:
    before = cloud_engine.requests
    stack = cloud_engine.create(name, TEMPLATE, name=name, rules=INGRESS)
    view = cloud_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    print(f"\ngroup with 2 rules + 1 rule: {cloud_engine.requests - before} cloud requests")
    outputs = cloud_engine.outputs(stack)
    group = outputs["group"]
    assert conn.network.get_security_group(group).description.startswith("thermik-")
    assert rules_of(conn, group) == {
        ("ingress", "IPv4", "tcp", 22, None),
        ("ingress", "IPv4", "icmp", None, "0.0.0.0/0"),
        ("ingress", "IPv4", "tcp", 80, "10.0.0.0/8"),
        ("egress", "IPv4", None, None, None),
        ("egress", "IPv6", None, None, None),
    }, "Neutron's default egress rules stay beside rules without egress"

    cloud_engine.update(stack, rules=INGRESS[:1] + EGRESS, port=8080)
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    updated = cloud_engine.outputs(stack)
    assert updated["group"] == group, "the group is updated in place"
    assert updated["http"] != outputs["http"], "a new port range replaces the rule"
    assert rules_of(conn, group) == {
        ("ingress", "IPv4", "tcp", 22, None),
        ("ingress", "IPv4", "tcp", 8080, "10.0.0.0/8"),
        ("egress", "IPv4", "tcp", 443, None),
    }, "an egress rule of the template's own replaces the defaults"

    assert cloud_engine.check(stack).status == "COMPLETE"
    view = cloud_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert not leftovers(conn, name)


def test_an_unknown_security_group_is_refused_at_validation(cloud_engine: CloudEngine) -> None:
    template = """
heat_template_version: 2018-08-31
resources:
  rule:
    type: OS::Neutron::SecurityGroupRule
    properties: {security_group: neutron-no-such-group}
"""
    with pytest.raises(PropertyError) as raised:
        cloud_engine.create(f"neutron-bad-{uuid.uuid4().hex[:8]}", template)
    assert "security_group" in str(raised.value)
    assert "could not be found" in str(raised.value)
