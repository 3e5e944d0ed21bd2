"""The registry: entry points of the installed package really load, errors are typed."""

from __future__ import annotations

from importlib import metadata
from typing import ClassVar

import pytest

from thermik.errors import PluginError, ResourceTypeNotFound
from thermik.resources import ENTRY_POINT_GROUP, Progress, Props, Registry, ResourcePlugin
from thermik.resources.context import ResourceContext
from thermik.resources.heat_basic import NoneResource
from thermik.resources.test_resource import TestResource

BUILT_IN = {
    "OS::Heat::None",
    "OS::Heat::Value",
    "OS::Heat::Delay",
    "OS::Heat::RandomString",
    "OS::Heat::TestResource",
    "OS::Heat::WaitCondition",
    "OS::Heat::WaitConditionHandle",
    "OS::Heat::UpdateWaitConditionHandle",
    "OS::Heat::ResourceGroup",
    "OS::Heat::ResourceChain",
    "OS::Heat::Stack",
    "OS::Heat::SoftwareConfig",
    "OS::Heat::StructuredConfig",
    "OS::Heat::SoftwareComponent",
    "OS::Heat::MultipartMime",
    "OS::Heat::CloudConfig",
    "OS::Heat::SoftwareDeployment",
    "OS::Heat::StructuredDeployment",
    "OS::Heat::SoftwareDeploymentGroup",
    "OS::Heat::SoftwareDeployments",
    "OS::Heat::StructuredDeploymentGroup",
    "OS::Heat::StructuredDeployments",
    "OS::Heat::DeployedServer",
}
HIDDEN = {"OS::Heat::SoftwareDeployments", "OS::Heat::StructuredDeployments"}


class Custom(ResourcePlugin):
    """A third-party type registered by a test."""

    attributes_schema: ClassVar = {}

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        return None


def ep(name: str, value: str) -> metadata.EntryPoint:
    return metadata.EntryPoint(name=name, value=value, group=ENTRY_POINT_GROUP)


def test_installed_entry_points_load_every_built_in_type() -> None:
    registry = Registry.from_entry_points()
    assert set(registry) >= BUILT_IN
    assert registry.get("OS::Heat::None") is NoneResource
    assert registry.get("OS::Heat::TestResource") is TestResource


def test_listing_hides_retired_aliases() -> None:
    registry = Registry.from_entry_points()
    assert HIDDEN.isdisjoint(registry.types())
    assert set(registry.types(include_hidden=True)) >= HIDDEN
    assert registry.types() == sorted(registry.types())


def test_unknown_type_names_the_type_and_the_resource() -> None:
    registry = Registry()
    with pytest.raises(ResourceTypeNotFound) as info:
        registry.get("OS::Nova::Server", resource="web")
    assert str(info.value) == (
        "resources.web: The Resource Type (OS::Nova::Server) could not be found."
    )
    assert info.value.resource == "web"
    with pytest.raises(ResourceTypeNotFound, match=r"^The Resource Type \(X\) could"):
        registry.get("X")


def test_instances_are_independent_and_take_extra_classes() -> None:
    one, other = Registry(), Registry({"OS::Heat::None": NoneResource})
    one.register("My::Custom", Custom)
    assert "My::Custom" in one
    assert "My::Custom" not in other
    assert len(one) == 1
    assert one.get("My::Custom") is Custom


def test_entries_load_from_given_entry_points() -> None:
    registry = Registry.from_entries(
        [
            ep("A::B", "thermik.resources.heat_basic:Value"),
            ep("A::C", "tests.unit.resources.test_registry:Custom"),
        ]
    )
    assert list(registry) == ["A::B", "A::C"]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("no.such.module:Thing", "Resource type X::Y: cannot load no.such.module:Thing: "),
        ("thermik.resources.heat_basic:Missing", "cannot load thermik.resources.heat_basic"),
        ("thermik.errors:PluginError", "is not a ResourcePlugin subclass"),
        ("thermik.resources.plugin:ResourcePlugin", "does not implement create"),
    ],
)
def test_broken_entries_are_plugin_errors(value: str, message: str) -> None:
    with pytest.raises(PluginError) as info:
        Registry.from_entries([ep("X::Y", value)])
    assert message in str(info.value)


def test_conflicting_registrations_are_refused() -> None:
    entries = [
        ep("X::Y", "thermik.resources.heat_basic:Value"),
        ep("X::Y", "thermik.resources.heat_basic:Delay"),
    ]
    with pytest.raises(PluginError, match="registered twice"):
        Registry.from_entries(entries)


def test_register_refuses_non_plugins() -> None:
    with pytest.raises(PluginError, match="is not a ResourcePlugin subclass"):
        Registry().register("X::Y", dict)  # type: ignore[arg-type]


def test_describe_renders_heats_resource_type_show() -> None:
    registry = Registry.from_entry_points()
    described = registry.describe("OS::Heat::RandomString", with_description=True)
    assert described["resource_type"] == "OS::Heat::RandomString"
    assert "sequence" not in described["properties"]  # hidden
    assert described["properties"]["length"] == {
        "type": "integer",
        "description": "Length of the generated string.",
        "default": 32,
        "required": False,
        "constraints": [{"range": {"min": 1, "max": 512}}],
        "update_allowed": False,
        "immutable": False,
    }
    assert set(described["attributes"]) == {"value", "show"}
    assert described["support_status"]["version"] == "2014.1"
    assert described["description"].startswith("``OS::Heat::RandomString``")
    assert "description" not in registry.describe("OS::Heat::None")
