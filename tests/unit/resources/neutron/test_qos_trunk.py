"""The pure parts of OS::Neutron::QoSPolicy, its rule types and OS::Neutron::Trunk:
registration, Heat's constraints and defaults, what needs replacement, and the sub-port
changes an update sends."""

from __future__ import annotations

from typing import Any

import pytest

from thermik.errors import PropertyError
from thermik.resources.neutron.qos import QoSPolicy
from thermik.resources.neutron.qos_rules import (
    QoSBandwidthLimitRule,
    QoSDscpMarkingRule,
    QoSMinimumBandwidthRule,
    QoSMinimumPacketRateRule,
)
from thermik.resources.neutron.trunk import Trunk, sub_port_changes
from thermik.resources.plugin import NeedsReplacement, ResourcePlugin
from thermik.resources.registry import Registry

TYPES = (
    "OS::Neutron::QoSPolicy",
    "OS::Neutron::QoSBandwidthLimitRule",
    "OS::Neutron::QoSDscpMarkingRule",
    "OS::Neutron::QoSMinimumBandwidthRule",
    "OS::Neutron::QoSMinimumPacketRateRule",
    "OS::Neutron::Trunk",
)


def test_the_types_are_registered() -> None:
    registry = Registry.from_entry_points()
    assert [t for t in TYPES if t not in registry] == []


def test_rules_take_heat_s_defaults() -> None:
    limit = QoSBandwidthLimitRule.check_properties({"policy": "p", "max_kbps": 10})
    assert (limit["direction"], limit["max_burst_kbps"]) == ("egress", 0)
    rate = QoSMinimumPacketRateRule.check_properties({"policy": "p", "min_kpps": 1})
    assert rate["direction"] == "egress"


@pytest.mark.parametrize(
    ("plugin", "props", "bad"),
    [
        (QoSDscpMarkingRule, {"dscp_mark": 3}, "dscp_mark"),
        (QoSBandwidthLimitRule, {"max_kbps": -1}, "max_kbps"),
        (QoSMinimumBandwidthRule, {"min_kbps": 1, "direction": "any"}, "direction"),
        (QoSMinimumPacketRateRule, {"min_kpps": 1, "direction": "sideways"}, "direction"),
    ],
)
def test_rules_refuse_values_neutron_does_not_take(
    plugin: type[ResourcePlugin], props: dict[str, Any], bad: str
) -> None:
    with pytest.raises(PropertyError) as caught:
        plugin.check_properties({"policy": "p", **props})
    assert bad in str(caught.value)


def test_a_packet_rate_rule_takes_any_direction() -> None:
    rule = {"policy": "p", "min_kpps": 1, "direction": "any"}
    assert QoSMinimumPacketRateRule.check_properties(rule)["direction"] == "any"


@pytest.mark.parametrize(
    ("sub_port", "bad"),
    [
        ({"port": "p", "segmentation_type": "vxlan", "segmentation_id": 5}, "segmentation_type"),
        ({"port": "p", "segmentation_type": "vlan", "segmentation_id": 4095}, "segmentation_id"),
        ({"port": "p", "segmentation_type": "vlan"}, "segmentation_id"),
    ],
)
def test_a_sub_port_needs_a_vlan_in_range(sub_port: dict[str, Any], bad: str) -> None:
    with pytest.raises(PropertyError) as caught:
        Trunk.check_properties({"port": "parent", "sub_ports": [sub_port]})
    assert bad in str(caught.value)


@pytest.mark.parametrize(
    ("plugin", "changed", "replaced"),
    [
        (QoSPolicy, {"name", "description", "shared"}, False),
        (QoSPolicy, {"tenant_id"}, True),
        (QoSBandwidthLimitRule, {"max_kbps", "max_burst_kbps", "direction"}, False),
        (QoSBandwidthLimitRule, {"policy"}, True),
        (QoSDscpMarkingRule, {"dscp_mark"}, False),
        (QoSMinimumBandwidthRule, {"min_kbps", "direction"}, False),
        (QoSMinimumPacketRateRule, {"min_kpps", "direction"}, False),
        (QoSMinimumPacketRateRule, {"tenant_id"}, True),
        (Trunk, {"name", "description", "sub_ports", "admin_state_up"}, False),
        (Trunk, {"port"}, True),
    ],
)
def test_what_needs_replacement(
    plugin: type[ResourcePlugin], changed: set[str], replaced: bool
) -> None:
    plan = plugin().needs_replacement(None, {}, {}, frozenset(changed))  # type: ignore[arg-type]
    assert isinstance(plan, NeedsReplacement) is replaced


def test_an_update_removes_then_adds_only_the_sub_ports_that_changed() -> None:
    old = [("a", "vlan", 101), ("b", "vlan", 102)]
    new = [("a", "vlan", 101), ("b", "vlan", 103), ("c", "vlan", 104)]
    gone, added = sub_port_changes(old, new)
    assert gone == [{"port_id": "b"}]
    assert added == [
        {"port_id": "b", "segmentation_type": "vlan", "segmentation_id": 103},
        {"port_id": "c", "segmentation_type": "vlan", "segmentation_id": 104},
    ]
    assert sub_port_changes(new, new) == ([], [])
