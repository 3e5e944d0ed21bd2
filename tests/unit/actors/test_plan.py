"""Which attributes successors read, and which plugin implements a resource."""

from __future__ import annotations

from typing import Any

import pytest

from thermik.actors.plan import EVERY_ATTRIBUTE, plugin_class, referenced_attributes
from thermik.errors import PropertyError
from thermik.resources.registry import Registry
from thermik.resources.template_resource import TemplateResource
from thermik.template import Environment, StackDefinition, Template, build_stack

REGISTRY = Registry.from_entry_points()


def definition(resources: dict[str, Any], files: dict[str, str] | None = None) -> StackDefinition:
    template = {"heat_template_version": "2021-04-16", "resources": resources}
    return build_stack(Template.from_document(template, files or {}), Environment())


def test_referenced_attributes_name_what_successors_read() -> None:
    found = referenced_attributes(
        definition(
            {
                "a": {"type": "OS::Heat::TestResource"},
                "b": {"type": "OS::Heat::TestResource"},
                "c": {"type": "OS::Heat::TestResource"},
                "user": {
                    "type": "OS::Heat::TestResource",
                    "properties": {"value": {"get_attr": ["a", "output"]}},
                    "metadata": {"all": {"get_attr": ["b"]}, "ref": {"get_resource": "c"}},
                },
                "other": {
                    "type": "OS::Heat::TestResource",
                    "properties": {"value": {"get_attr": ["a", "show", "x"]}},
                },
            }
        )
    )
    assert found == {"a": frozenset({"output", "show", '["show", "x"]'}), "b": EVERY_ATTRIBUTE}


def test_a_computed_path_names_the_attribute_only() -> None:
    found = referenced_attributes(
        definition(
            {
                "a": {"type": "OS::Heat::TestResource"},
                "b": {
                    "type": "OS::Heat::TestResource",
                    "properties": {"value": {"get_attr": ["a", "show", {"get_resource": "a"}]}},
                },
            }
        )
    )
    assert found == {"a": frozenset({"show"})}


def test_a_computed_attribute_name_means_every_attribute() -> None:
    found = referenced_attributes(
        definition(
            {
                "a": {"type": "OS::Heat::TestResource"},
                "b": {
                    "type": "OS::Heat::TestResource",
                    "properties": {
                        "value": {"get_attr": ["a", {"list_join": ["", ["out", "put"]]}]}
                    },
                },
            }
        )
    )
    assert found == {"a": EVERY_ATTRIBUTE}


def test_plugin_class_of_builtin_and_template_resources() -> None:
    found = definition(
        {"a": {"type": "OS::Heat::TestResource"}, "n": {"type": "nested.yaml"}},
        {
            "nested.yaml": "heat_template_version: 2021-04-16\n"
            "parameters: {size: {type: number}}\noutputs: {ip: {value: 1}}\n"
        },
    )
    assert plugin_class(REGISTRY, found, "a") is REGISTRY.get("OS::Heat::TestResource")
    nested = plugin_class(REGISTRY, found, "n")
    assert issubclass(nested, TemplateResource)
    assert set(nested.properties_schema) == {"size"}
    assert set(nested.attributes_schema) == {"OS::stack_id", "ip"}
    assert nested.parent_files == found.template.files
    with pytest.raises(PropertyError, match="size"):
        nested.check_properties({"size": "many"})
