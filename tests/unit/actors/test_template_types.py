"""The engine's memory of which stored templates map no resource type."""

from __future__ import annotations

from typing import Any

from tests.scenarios.runtime_harness import HOT
from thermik.actors.template_types import PlainTemplates, maps_no_type
from thermik.resources.registry import Registry
from thermik.template import Environment, StackDefinition, Template, build_stack

REGISTRY = Registry.from_entry_points()
NESTED = f"heat_template_version: {HOT}\nresources: {{}}\n"


def definition(
    resources: dict[str, Any],
    environment: dict[str, Any] | None = None,
    files: dict[str, str] | None = None,
) -> StackDefinition:
    document = {"heat_template_version": HOT, "resources": resources}
    return build_stack(
        Template.from_document(document, files), Environment.from_dict(environment or {})
    )


def test_a_template_of_plain_plugin_types_maps_none() -> None:
    plain = definition({"a": {"type": "OS::Heat::None"}, "b": {"type": "OS::Heat::Value"}})
    assert maps_no_type(plain, REGISTRY)


def test_an_environment_mapping_a_template_resource_or_a_nested_stack_maps_one() -> None:
    mapped = definition(
        {"a": {"type": "My::Thing"}},
        {"resource_registry": {"My::Thing": "OS::Heat::None"}},
    )
    assert not maps_no_type(mapped, REGISTRY)
    by_file = definition({"a": {"type": "nested.yaml"}}, files={"nested.yaml": NESTED})
    assert not maps_no_type(by_file, REGISTRY)
    group = definition(
        {"a": {"type": "OS::Heat::ResourceGroup", "properties": {"resource_def": {}}}}
    )
    assert not maps_no_type(group, REGISTRY)


def test_only_noted_templates_are_known_plain_and_the_oldest_are_forgotten() -> None:
    plain = definition({"a": {"type": "OS::Heat::None"}})
    mapped = definition(
        {"a": {"type": "My::Thing"}}, {"resource_registry": {"My::Thing": "OS::Heat::None"}}
    )
    memory = PlainTemplates(limit=2)
    assert not memory.is_plain(1)
    memory.note(1, plain, REGISTRY)
    memory.note(2, mapped, REGISTRY)
    assert memory.is_plain(1)
    assert not memory.is_plain(2)
    memory.note(3, plain, REGISTRY)  # the least recently noted (1) is forgotten
    assert not memory.is_plain(1)
    assert memory.is_plain(3)
