"""Every built-in type: its schema validates real templates' values, renders, and the types
without behaviour yet fail clearly instead of pretending to work.

The expected schema facts below were read from openstack-heat 27 (``properties_schema`` of the
same types); a scratch comparison of every name, type, default, constraint and flag agreed.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.resources.harness import Context
from thermik.errors import PluginError, PropertyError
from thermik.resources import (
    AllowedValues,
    Range,
    Registry,
    ResourcePlugin,
    SupportLevel,
    Type,
    plan_update,
)
from thermik.resources.pending import PendingPlugin

REGISTRY = Registry.from_entry_points()
TYPES = REGISTRY.types(include_hidden=True)
BUILT_IN = [t for t in TYPES if t.startswith("OS::Heat::")]

#: Smallest valid property values for types with required properties.
MINIMAL: dict[str, dict[str, Any]] = {
    "OS::Heat::Value": {"value": 1},
    "OS::Heat::WaitCondition": {"handle": "h", "timeout": 60},
    "OS::Heat::SwiftSignal": {"handle": "h", "timeout": 60},
    "OS::Heat::ResourceGroup": {"resource_def": {"type": "OS::Heat::None"}},
    "OS::Heat::ResourceChain": {"resources": ["OS::Heat::None"]},
    "OS::Heat::AutoScalingGroup": {
        "min_size": 1,
        "max_size": 2,
        "resource": {"type": "OS::Heat::None"},
    },
    "OS::Heat::ScalingPolicy": {
        "auto_scaling_group_id": "g",
        "adjustment_type": "change_in_capacity",
        "scaling_adjustment": 1,
    },
    "OS::Heat::Stack": {"template": "heat_template_version: 2018-08-31"},
    "OS::Heat::SoftwareComponent": {"configs": [{"tool": "script"}]},
    "OS::Heat::SoftwareDeployment": {"server": "srv"},
    "OS::Heat::StructuredDeployment": {"server": "srv"},
    "OS::Heat::SoftwareDeploymentGroup": {"servers": {"a": "srv"}},
    "OS::Heat::SoftwareDeployments": {"servers": {"a": "srv"}},
    "OS::Heat::StructuredDeploymentGroup": {"servers": {"a": "srv"}},
    "OS::Heat::StructuredDeployments": {"servers": {"a": "srv"}},
}


def plugin_of(type_name: str) -> type[ResourcePlugin]:
    return REGISTRY.get(type_name)


@pytest.mark.parametrize("type_name", BUILT_IN)
def test_minimal_values_validate_and_fill_every_property(type_name: str) -> None:
    cls = plugin_of(type_name)
    props = cls.check_properties(MINIMAL.get(type_name, {}))
    if type_name != "OS::Heat::None":
        assert list(props) == list(cls.properties_schema)


@pytest.mark.parametrize("type_name", [t for t in BUILT_IN if t in MINIMAL])
def test_required_properties_are_enforced(type_name: str) -> None:
    with pytest.raises(PropertyError, match="not assigned"):
        plugin_of(type_name).check_properties({})


@pytest.mark.parametrize("type_name", BUILT_IN)
def test_schemas_render_for_the_resource_type_api(type_name: str) -> None:
    cls = plugin_of(type_name)
    for schema in [*cls.properties_schema.values(), *cls.update_policy_schema.values()]:
        assert schema.as_dict()["type"] in {t.value.lower() for t in Type}
    for attribute in cls.attributes_schema.values():
        assert isinstance(attribute.as_dict(), dict)
        assert cls.has_attribute("show")


def test_every_built_in_type_is_implemented() -> None:
    assert not [t for t in BUILT_IN if issubclass(plugin_of(t), PendingPlugin)]


class Later(PendingPlugin):
    """A type whose schema exists before its behaviour."""


def test_a_pending_type_fails_clearly_but_can_be_deleted() -> None:
    ctx = Context(resource_name="x", resource_type="My::Later")
    plugin = Later()
    with pytest.raises(PluginError) as info:
        plugin.create(ctx, {})
    assert str(info.value) == "My::Later: create is not implemented yet"
    assert info.value.resource == "x"
    with pytest.raises(PluginError, match="update is not implemented yet"):
        plugin.update(ctx, {}, {}, frozenset())
    with pytest.raises(PluginError, match="signal is not implemented yet"):
        plugin.handle_signal(ctx, {}, {})
    assert plugin.check_delete_complete(ctx, {}, plugin.delete(ctx, {})) is True


def test_update_wait_condition_handle_is_replaced_on_every_update() -> None:
    cls = plugin_of("OS::Heat::UpdateWaitConditionHandle")
    assert plan_update(cls(), Context(), {}, {}).replacement is not None


@pytest.mark.parametrize(
    ("type_name", "expected"),
    [
        ("OS::Heat::WaitConditionHandle", True),
        ("OS::Heat::UpdateWaitConditionHandle", True),
        ("OS::Heat::SoftwareDeployment", True),
        ("OS::Heat::StructuredDeployment", True),
        ("OS::Heat::SoftwareDeploymentGroup", False),
        ("OS::Heat::WaitCondition", False),
        ("OS::Heat::TestResource", False),
        ("OS::Heat::ScalingPolicy", True),
        ("OS::Heat::AutoScalingGroup", True),
    ],
)
def test_which_types_take_signals(type_name: str, expected: bool) -> None:
    assert plugin_of(type_name).takes_signals is expected


@pytest.mark.parametrize(
    "type_name",
    [
        "OS::Heat::None",
        "OS::Heat::ResourceGroup",
        "OS::Heat::ResourceChain",
        "OS::Heat::AutoScalingGroup",
        "OS::Heat::SoftwareDeployment",
        "OS::Heat::StructuredDeploymentGroup",
    ],
)
def test_types_with_attributes_beyond_their_schema(type_name: str) -> None:
    assert plugin_of(type_name).has_attribute("resource.0.first_address")


def test_retired_group_names_are_hidden_aliases() -> None:
    for name, replacement in [
        ("OS::Heat::SoftwareDeployments", "OS::Heat::SoftwareDeploymentGroup"),
        ("OS::Heat::StructuredDeployments", "OS::Heat::StructuredDeploymentGroup"),
    ]:
        status = plugin_of(name).support_status
        assert status.status is SupportLevel.HIDDEN
        assert status.message == f"Please use {replacement} instead."
        assert status.previous is not None
        assert status.previous.status is SupportLevel.DEPRECATED
        assert plugin_of(name).properties_schema == plugin_of(replacement).properties_schema


@pytest.mark.parametrize(
    ("type_name", "prop", "facts"),
    [
        (
            "OS::Heat::WaitCondition",
            "timeout",
            {"required": True, "constraints": (Range(1, 43200),)},
        ),
        ("OS::Heat::WaitCondition", "count", {"default": 1, "update_allowed": True}),
        ("OS::Heat::WaitConditionHandle", "signal_transport", {"default": "TOKEN_SIGNAL"}),
        (
            "OS::Heat::SwiftSignal",
            "count",
            {"default": 1, "update_allowed": False, "constraints": (Range(1, 1000),)},
        ),
        ("OS::Heat::SwiftSignal", "timeout", {"required": True}),
        ("OS::Heat::SoftwareDeployment", "signal_transport", {"default": "CFN_SIGNAL"}),
        ("OS::Heat::SoftwareDeployment", "server", {"required": True, "update_allowed": False}),
        (
            "OS::Heat::SoftwareDeployment",
            "actions",
            {
                "default": ["CREATE", "UPDATE"],
                "constraints": (
                    AllowedValues(("CREATE", "UPDATE", "DELETE", "SUSPEND", "RESUME")),
                ),
            },
        ),
        ("OS::Heat::StructuredDeployment", "input_values_validate", {"default": "LAX"}),
        ("OS::Heat::SoftwareConfig", "group", {"default": "Heat::Ungrouped"}),
        ("OS::Heat::MultipartMime", "parts", {"default": []}),
        ("OS::Heat::ResourceGroup", "count", {"default": 1, "update_allowed": True}),
        ("OS::Heat::ResourceGroup", "index_var", {"default": "%index%", "update_allowed": False}),
        ("OS::Heat::DeployedServer", "software_config_transport", {"default": "POLL_SERVER_CFN"}),
        ("OS::Heat::Stack", "parameters", {"default": {}, "update_allowed": True}),
    ],
)
def test_schema_facts_agree_with_heat(type_name: str, prop: str, facts: dict[str, Any]) -> None:
    schema = plugin_of(type_name).properties_schema[prop]
    assert {key: getattr(schema, key) for key in facts} == facts


def test_group_update_policies() -> None:
    group = plugin_of("OS::Heat::ResourceGroup").update_policy_schema
    deployments = plugin_of("OS::Heat::SoftwareDeploymentGroup").update_policy_schema
    assert set(group) == set(deployments) == {"rolling_update", "batch_create"}
    rolling = group["rolling_update"].entry_schemas
    assert rolling is not None
    assert set(rolling) == {"min_in_service", "max_batch_size", "pause_time"}
    deploy_rolling = deployments["rolling_update"].entry_schemas
    assert deploy_rolling is not None
    assert set(deploy_rolling) == {"max_batch_size", "pause_time"}
