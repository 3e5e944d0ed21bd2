"""The pure parts of OS::Neutron::SubnetPool, AddressScope, RBACPolicy, Quota, ExtraRouteSet
and ProviderNet: registration, the prefix-length, action, route and provider checks, Heat's
defaults and what needs replacement."""

from __future__ import annotations

from typing import Any

import pytest

from thermik.errors import PropertyError
from thermik.resources.context import ValidationContext
from thermik.resources.net_constraints import with_pure
from thermik.resources.neutron.address_scope import AddressScope
from thermik.resources.neutron.extra_route_set import ExtraRouteSet
from thermik.resources.neutron.provider_net import ProviderNet
from thermik.resources.neutron.quota import Quota
from thermik.resources.neutron.rbac_policy import RBACPolicy
from thermik.resources.neutron.subnet_pool import SubnetPool, prefix_bounds_problem
from thermik.resources.plugin import NeedsReplacement, ResourcePlugin
from thermik.resources.registry import Registry


def test_both_types_are_registered() -> None:
    registry = Registry.from_entry_points()
    assert "OS::Neutron::SubnetPool" in registry
    assert "OS::Neutron::AddressScope" in registry
    assert "OS::Neutron::RBACPolicy" in registry
    assert "OS::Neutron::Quota" in registry
    assert "OS::Neutron::ExtraRouteSet" in registry
    assert "OS::Neutron::ProviderNet" in registry


def test_a_provider_network_checks_its_type_against_its_fields() -> None:
    with pytest.raises(PropertyError) as caught:
        ProviderNet().validate({"network_type": "flat"}, ValidationContext())
    assert caught.value.path == ("properties", "physical_network")
    flat = {"network_type": "flat", "physical_network": "p", "segmentation_id": "5"}
    with pytest.raises(PropertyError) as caught:
        ProviderNet().validate(flat, ValidationContext())
    assert caught.value.path == ("properties", "segmentation_id")
    ProviderNet().validate({"network_type": "vxlan"}, ValidationContext())


def test_a_route_needs_a_cidr_destination_and_an_address_as_next_hop() -> None:
    pure = with_pure(None)
    bad = {"router": "r", "routes": [{"destination": "10.0.0.0/33", "nexthop": "10.0.0.1"}]}
    with pytest.raises(PropertyError) as caught:
        ExtraRouteSet.check_properties(bad, custom_constraints=pure)
    assert "destination" in str(caught.value)
    bad["routes"] = [{"destination": "10.0.0.0/24", "nexthop": "10.0.0.0/24"}]
    with pytest.raises(PropertyError) as caught:
        ExtraRouteSet.check_properties(bad, custom_constraints=pure)
    assert "nexthop" in str(caught.value)


def test_a_quota_needs_one_quota_at_least() -> None:
    with pytest.raises(PropertyError) as caught:
        Quota().validate({"project": "p"}, ValidationContext())
    assert "floatingip, network, port, router" in str(caught.value)
    Quota().validate({"project": "p", "port": -1}, ValidationContext())


def test_an_action_the_object_type_does_not_take_is_refused() -> None:
    props = {"object_type": "qos_policy", "action": "access_as_external"}
    with pytest.raises(PropertyError) as caught:
        RBACPolicy().validate(props, ValidationContext())
    assert caught.value.path == ("properties", "action")
    assert "Valid actions: access_as_shared" in str(caught.value)
    RBACPolicy().validate({**props, "object_type": "network"}, ValidationContext())


@pytest.mark.parametrize(
    ("props", "where"),
    [
        ({"min_prefixlen": 28, "max_prefixlen": 24}, "min_prefixlen"),
        ({"min_prefixlen": 24, "default_prefixlen": 16}, "default_prefixlen"),
        ({"max_prefixlen": 24, "default_prefixlen": 28}, "default_prefixlen"),
    ],
)
def test_prefix_bounds_upside_down_name_their_property(props: dict[str, Any], where: str) -> None:
    with pytest.raises(PropertyError) as caught:
        SubnetPool().validate({"prefixes": ["10.0.0.0/16"], **props}, ValidationContext())
    assert caught.value.path == ("properties", where)
    assert "Illegal prefix bounds" in str(caught.value)


def test_consistent_bounds_pass() -> None:
    bounds = {"min_prefixlen": 20, "default_prefixlen": 24, "max_prefixlen": 28}
    assert prefix_bounds_problem(bounds) is None
    assert prefix_bounds_problem({"default_prefixlen": 24}) is None


def test_a_pool_needs_a_prefix_and_each_must_be_a_cidr() -> None:
    with pytest.raises(PropertyError) as caught:
        SubnetPool.check_properties({"prefixes": []})
    assert "prefixes" in str(caught.value)
    with pytest.raises(PropertyError) as caught:
        SubnetPool.check_properties(
            {"prefixes": ["10.0.0.0/33"]}, custom_constraints=with_pure(None)
        )
    assert "prefixes" in str(caught.value)


def test_heats_defaults() -> None:
    pool = SubnetPool.check_properties({"prefixes": ["10.0.0.0/16"]})
    assert (pool["is_default"], pool["shared"]) == (False, False)
    scope = AddressScope.check_properties({})
    assert (scope["ip_version"], scope["shared"]) == (4, False)
    with pytest.raises(PropertyError) as caught:
        AddressScope.check_properties({"ip_version": 5})
    assert "ip_version" in str(caught.value)


@pytest.mark.parametrize(
    ("plugin", "changed", "replaced"),
    [
        (
            SubnetPool,
            {"name", "prefixes", "address_scope", "default_quota", "is_default", "tags"},
            False,
        ),
        (SubnetPool, {"min_prefixlen", "max_prefixlen", "default_prefixlen"}, False),
        (SubnetPool, {"shared"}, True),
        (SubnetPool, {"tenant_id"}, True),
        (AddressScope, {"name", "shared"}, False),
        (AddressScope, {"ip_version"}, True),
        (AddressScope, {"tenant_id"}, True),
        (RBACPolicy, {"target_tenant"}, False),
        (Quota, {"network", "port", "subnet", "router", "floatingip"}, False),
        (Quota, {"project"}, True),
        (ExtraRouteSet, {"routes"}, False),
        (ExtraRouteSet, {"router"}, True),
        (ProviderNet, {"name", "network_type", "segmentation_id", "router_external"}, False),
        (RBACPolicy, {"object_id"}, True),
        (RBACPolicy, {"action"}, True),
        (RBACPolicy, {"object_type"}, True),
    ],
)
def test_what_needs_replacement(
    plugin: type[ResourcePlugin], changed: set[str], replaced: bool
) -> None:
    plan = plugin().needs_replacement(None, {}, {}, frozenset(changed))  # type: ignore[arg-type]
    assert isinstance(plan, NeedsReplacement) is replaced
