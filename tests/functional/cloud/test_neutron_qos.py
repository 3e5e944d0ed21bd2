"""OS::Neutron::QoSPolicy and its four rule types on the real Neutron (the qos service plugin,
no agents: policies and rules live in the API and database only), as the cloud's admin (Neutron
lets only administrators make policies): a policy with a bandwidth limit, DSCP marking,
minimum bandwidth and minimum packet rate rule, a network and a port using it; the policy and
the rules updated in place (a rule's direction too); check; delete. Nothing is left behind."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from thermik.errors import PropertyError

pytestmark = pytest.mark.functional

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  name: {type: string}
  description: {type: string, default: ""}
  max_kbps: {type: number, default: 1000}
  direction: {type: string, default: egress}
  mark: {type: number, default: 16}
  shared: {type: boolean, default: false}
resources:
  policy:
    type: OS::Neutron::QoSPolicy
    properties:
      name: {get_param: name}
      description: {get_param: description}
      shared: {get_param: shared}
  limit:
    type: OS::Neutron::QoSBandwidthLimitRule
    properties:
      policy: {get_resource: policy}
      max_kbps: {get_param: max_kbps}
      max_burst_kbps: 100
      direction: {get_param: direction}
  dscp:
    type: OS::Neutron::QoSDscpMarkingRule
    properties:
      policy: {get_resource: policy}
      dscp_mark: {get_param: mark}
  minimum:
    type: OS::Neutron::QoSMinimumBandwidthRule
    properties:
      policy: {get_resource: policy}
      min_kbps: 100
  packets:
    type: OS::Neutron::QoSMinimumPacketRateRule
    properties:
      policy: {get_resource: policy}
      min_kpps: 10
      direction: any
  net:
    type: OS::Neutron::Net
    properties:
      name: {get_param: name}
      qos_policy: {get_resource: policy}
  port:
    type: OS::Neutron::Port
    depends_on: [limit, dscp, minimum, packets]
    properties:
      name: {get_param: name}
      network: {get_resource: net}
      qos_policy: {get_resource: policy}
outputs:
  policy: {value: {get_resource: policy}}
  rules: {value: {get_attr: [policy, rules]}}
  limit: {value: {get_resource: limit}}
  dscp: {value: {get_resource: dscp}}
  net: {value: {get_resource: net}}
  port: {value: {get_resource: port}}
"""


def named(admin: Any, prefix: str) -> list[str]:
    """The QoS policies, networks and ports named ``prefix...``, whoever owns them."""
    return [
        f"{kind}:{item.id}"
        for kind in ("ports", "networks", "qos_policies")
        for item in getattr(admin.network, kind)()
        if (item.name or "").startswith(prefix)
    ]


def remove(admin: Any, prefix: str) -> None:
    for kind, plural in (
        ("port", "ports"),
        ("network", "networks"),
        ("qos_policy", "qos_policies"),
    ):
        for item in list(getattr(admin.network, plural)()):
            if (item.name or "").startswith(prefix):
                getattr(admin.network, f"delete_{kind}")(item, ignore_missing=True)


def test_a_policy_and_its_rules_are_created_used_updated_checked_and_deleted(
    admin_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    admin = cloud_env.connect(admin=True)
    name = f"neutron-qos-{uuid.uuid4().hex[:8]}"
    try:
        lifecycle(admin_engine, admin, name)
    finally:
        left = named(admin, name)
        remove(admin, name)
    assert not left


def rule_values(rules: list[dict[str, Any]]) -> set[tuple[Any, ...]]:
    keys = ("type", "direction", "max_kbps", "max_burst_kbps", "dscp_mark", "min_kbps", "min_kpps")
    return {tuple(rule.get(k) for k in keys) for rule in rules}


def lifecycle(engine: CloudEngine, admin: Any, name: str) -> None:
    stack = engine.create(name, TEMPLATE, name=name)
    view = engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    outputs = engine.outputs(stack)
    policy = admin.network.get_qos_policy(outputs["policy"])
    assert (policy.name, policy.is_shared) == (name, False)
    assert policy.description.startswith("thermik-"), "the creation tag, with no description"
    assert rule_values(policy.rules) == {
        ("bandwidth_limit", "egress", 1000, 100, None, None, None),
        ("dscp_marking", None, None, None, 16, None, None),
        ("minimum_bandwidth", "egress", None, None, None, 100, None),
        ("minimum_packet_rate", "any", None, None, None, None, 10),
    }
    # The rules attribute is as the policy's last create or update saw it: here before its
    # rules were made (they require the policy).
    assert outputs["rules"] == []
    assert admin.network.get_network(outputs["net"]).qos_policy_id == policy.id
    assert admin.network.get_port(outputs["port"]).qos_policy_id == policy.id

    engine.update(
        stack, name=name, description="limited", max_kbps=2000, direction="ingress", mark=26
    )
    view = engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    updated = engine.outputs(stack)
    assert (updated["policy"], updated["limit"], updated["dscp"]) == (
        outputs["policy"],
        outputs["limit"],
        outputs["dscp"],
    ), "the policy and its rules are updated in place"
    policy = admin.network.get_qos_policy(policy.id)
    assert policy.description == "limited"
    assert ("bandwidth_limit", "ingress", 2000, 100, None, None, None) in rule_values(policy.rules)
    assert ("dscp_marking", None, None, None, 26, None, None) in rule_values(policy.rules)
    # The policy was updated before its rules: the attribute lists the same four rules.
    assert {r["id"] for r in updated["rules"]} == {r["id"] for r in policy.rules}

    assert engine.check(stack).status == "COMPLETE"

    view = engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert admin.network.find_qos_policy(policy.id) is None


def test_a_dscp_mark_neutron_does_not_take_is_refused_at_validation(
    admin_engine: CloudEngine,
) -> None:
    template = """
heat_template_version: 2018-08-31
resources:
  dscp:
    type: OS::Neutron::QoSDscpMarkingRule
    properties: {policy: some-policy, dscp_mark: 3}
"""
    with pytest.raises(PropertyError) as raised:
        admin_engine.create(f"neutron-bad-{uuid.uuid4().hex[:8]}", template)
    assert "dscp_mark" in str(raised.value)


def test_an_unknown_policy_is_refused_at_validation(admin_engine: CloudEngine) -> None:
    template = """
heat_template_version: 2018-08-31
resources:
  limit:
    type: OS::Neutron::QoSBandwidthLimitRule
    properties: {policy: neutron-no-such-policy, max_kbps: 10}
"""
    with pytest.raises(PropertyError) as raised:
        admin_engine.create(f"neutron-bad-{uuid.uuid4().hex[:8]}", template)
    assert "policy" in str(raised.value)
    assert "could not be found" in str(raised.value)
