"""Software config types store an immutable config whose id is their physical id."""

from __future__ import annotations

import email

import pytest
import yaml

from tests.unit.resources.harness import Context
from tests.unit.resources.software_harness import SoftwareCtx
from thermik.errors import PluginError
from thermik.resources import Registry, plan_update

REGISTRY = Registry.from_entry_points()


def created(type_name: str, values: dict[str, object], ctx: SoftwareCtx | None = None):
    ctx = ctx or SoftwareCtx(resource_name="cfg", resource_type=type_name)
    cls = REGISTRY.get(type_name)
    props = cls.check_properties(values)
    plugin = cls()
    assert plugin.create(ctx, props) is None
    assert ctx.physical_id is not None
    return plugin, props, ctx, ctx.software.configs[ctx.physical_id]


def test_software_config_is_stored_with_its_declarations() -> None:
    plugin, props, ctx, stored = created(
        "OS::Heat::SoftwareConfig",
        {
            "group": "script",
            "config": "#!/bin/sh\necho $foo",
            "inputs": [{"name": "foo", "default": "bar"}],
            "outputs": [{"name": "result", "error_output": True}],
            "options": {"verbose": True},
        },
    )
    assert stored.group == "script"
    assert stored.name.startswith("teststack-cfg-")
    assert stored.inputs == (
        {"name": "foo", "type": "String", "default": "bar", "replace_on_change": False},
    )
    assert stored.outputs == ({"name": "result", "type": "String", "error_output": True},)
    assert stored.options == {"verbose": True}
    assert ctx.software.tenants[ctx.physical_id] == "tenant"
    assert plugin.attribute(ctx, props, "config") == "#!/bin/sh\necho $foo"
    assert plugin.reference_id(ctx, props) == ctx.physical_id


def test_defaults_are_heats() -> None:
    _, _, _, stored = created("OS::Heat::SoftwareConfig", {})
    assert (stored.group, stored.config, stored.inputs, stored.options) == (
        "Heat::Ungrouped",
        None,
        (),
        {},
    )


def test_any_change_replaces_the_config() -> None:
    plugin, props, ctx, _ = created("OS::Heat::SoftwareConfig", {"config": "a"})
    new = type(plugin).check_properties({"config": "b"})
    assert plan_update(plugin, ctx, new, props).replacement is not None


def test_delete_removes_the_stored_config_and_tolerates_it_being_gone() -> None:
    plugin, props, ctx, _ = created("OS::Heat::SoftwareConfig", {"config": "a"})
    assert plugin.delete(ctx, props) is None
    assert ctx.software.configs == {}
    assert plugin.delete(ctx, props) is None
    assert plugin.attribute(ctx, props, "config") is None


def test_structured_config_keeps_its_map() -> None:
    plugin, props, ctx, stored = created(
        "OS::Heat::StructuredConfig", {"group": "os-apply-config", "config": {"a": [1, 2]}}
    )
    assert stored.config == {"a": [1, 2]}
    assert plugin.attribute(ctx, props, "config") == {"a": [1, 2]}


def test_software_component_is_the_component_group() -> None:
    _, _, _, stored = created(
        "OS::Heat::SoftwareComponent",
        {"configs": [{"actions": ["CREATE"], "config": "x", "tool": "script"}]},
    )
    assert stored.group == "component"
    assert stored.config == {"configs": [{"actions": ["CREATE"], "config": "x", "tool": "script"}]}


def test_cloud_config_renders_block_yaml() -> None:
    _, _, _, stored = created(
        "OS::Heat::CloudConfig", {"cloud_config": {"packages": ["git"], "ssh_pwauth": False}}
    )
    assert stored.config.startswith("#cloud-config\n")
    assert yaml.safe_load(stored.config) == {"packages": ["git"], "ssh_pwauth": False}
    assert "- git" in stored.config


def test_multipart_mime_resolves_config_ids_and_keeps_literals() -> None:
    ctx = SoftwareCtx(resource_name="mime", resource_type="OS::Heat::MultipartMime")
    _, _, _, script = created("OS::Heat::SoftwareConfig", {"config": "#!/bin/sh\necho one"}, ctx)
    script_id = ctx.physical_id
    assert script_id is not None
    ctx.physical_id = None
    _, _, _, stored = created(
        "OS::Heat::MultipartMime",
        {
            "parts": [
                {"config": script_id, "filename": "one.sh"},
                {"config": "#cloud-config\n{}", "subtype": "cloud-config"},
            ]
        },
        ctx,
    )
    message = email.message_from_string(stored.config)
    parts = list(message.walk())[1:]
    assert [p.get_content_type() for p in parts] == ["text/one", "text/cloud-config"]
    assert parts[0].get_filename() == "one.sh"
    assert parts[0].get_payload() == script.config
    assert parts[1].get_payload() == "#cloud-config\n{}"


def test_multipart_parts_of_a_multipart_part_are_inlined() -> None:
    ctx = SoftwareCtx(resource_name="mime", resource_type="OS::Heat::MultipartMime")
    _ = created(
        "OS::Heat::MultipartMime", {"parts": [{"config": "a", "subtype": "x-shellscript"}]}, ctx
    )
    inner_id = ctx.physical_id
    assert inner_id is not None
    ctx.physical_id = None
    _, _, _, outer = created(
        "OS::Heat::MultipartMime", {"parts": [{"config": inner_id, "type": "multipart"}]}, ctx
    )
    parts = list(email.message_from_string(outer.config).walk())[1:]
    assert [(p.get_content_type(), p.get_payload()) for p in parts] == [
        ("text/x-shellscript", "a")
    ]


def test_without_software_services_the_error_says_so() -> None:
    cls = REGISTRY.get("OS::Heat::SoftwareConfig")
    ctx = Context(resource_name="cfg", resource_type="OS::Heat::SoftwareConfig")
    with pytest.raises(PluginError, match="no software deployment services") as info:
        cls().create(ctx, cls.check_properties({}))
    assert info.value.resource == "cfg"
