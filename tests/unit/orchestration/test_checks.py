"""Checking definitions before anything is stored: static resolution and nested templates."""

from __future__ import annotations

from typing import Any

import pytest

from thermik.conf.settings import LimitSettings
from thermik.errors import ParameterError, PropertyError, TemplateError, TemplateTooLarge
from thermik.orchestration.checks import (
    UNKNOWN,
    check_resources,
    static_properties,
    unresolved,
    without_runtime,
)
from thermik.resources import Registry
from thermik.template import Template, build_stack

REGISTRY = Registry.from_entry_points()


def definition(
    properties: Any, *, strict: bool = True, files: dict[str, str] | None = None
) -> Any:
    template = Template.from_document(
        {
            "heat_template_version": "2021-04-16",
            "parameters": {"p": {"type": "string", "default": "x"}, "q": {"type": "string"}},
            "conditions": {"no": False},
            "resources": {
                "other": {"type": "OS::Heat::TestResource"},
                "r": {"type": "OS::Heat::Value", "properties": properties},
            },
        },
        files,
    )
    params = {"q": "given"} if strict else {}
    return build_stack(template, None, params, strict=strict)


def test_static_parts_resolve_and_runtime_parts_stay() -> None:
    defn = definition(
        {
            "value": {
                "plain": {"get_param": "p"},
                "later": {"get_attr": ["other", "output"]},
                "gone": {"if": ["no", "kept"]},
                "items": [{"get_param": "q"}, {"get_resource": "other"}],
            }
        }
    )
    props = static_properties(defn, "r")
    value = props["value"]
    assert value["plain"] == "x"
    assert "gone" not in value
    assert value["items"][0] == "given"
    assert unresolved(value["later"])
    assert unresolved(value["items"][1])
    assert without_runtime(props) == {
        "value": {"plain": "x", "later": None, "items": ["given", None]}
    }


def test_lenient_resolution_marks_what_cannot_be_known() -> None:
    defn = definition({"value": {"get_param": "q"}}, strict=False)
    assert static_properties(defn, "r", lenient=True) == {"value": UNKNOWN}
    with pytest.raises(ParameterError):
        static_properties(defn, "r")


NESTED = """\
heat_template_version: 2018-08-31
parameters:
  size: {type: number}
resources:
  pw: {type: OS::Heat::RandomString, properties: {length: {get_param: size}, salt: 7}}
"""


def nested_stack(size: Any, nested: str = NESTED) -> Any:
    template = Template.from_document(
        {
            "heat_template_version": "2018-08-31",
            "resources": {"child": {"type": "nested.yaml", "properties": {"size": size}}},
        },
        {"nested.yaml": nested},
    )
    return build_stack(template, None, None, known_types=REGISTRY.__contains__)


def test_template_resources_are_checked_as_nested_stacks() -> None:
    check_resources(nested_stack(8), REGISTRY, LimitSettings())
    with pytest.raises(PropertyError, match=r"^resources\.child\.resources\.pw\.properties"):
        check_resources(nested_stack(0), REGISTRY, LimitSettings())
    with pytest.raises(TemplateTooLarge, match="max_resources_per_stack"):
        check_resources(nested_stack(8), REGISTRY, LimitSettings(max_resources_per_stack=1))


def test_nesting_is_bounded() -> None:
    looping = (
        "heat_template_version: 2018-08-31\n"
        "parameters: {size: {type: number, default: 1}}\n"
        "resources: {again: {type: nested.yaml}}\n"
    )
    with pytest.raises(TemplateTooLarge, match="Recursion depth exceeds 2"):
        check_resources(
            nested_stack(8, looping), REGISTRY, LimitSettings(max_nested_stack_depth=2)
        )


def test_the_snapshot_deletion_policy_is_refused_for_a_type_that_keeps_no_copy() -> None:
    def stack(kind: str, properties: dict[str, Any]) -> Any:
        document = {
            "heat_template_version": "2021-04-16",
            "resources": {
                "r": {"type": kind, "properties": properties, "deletion_policy": "Snapshot"}
            },
        }
        return build_stack(Template.from_document(document), None, {})

    with pytest.raises(TemplateError, match='"Snapshot" deletion policy not supported') as bad:
        check_resources(stack("OS::Heat::TestResource", {}), REGISTRY, LimitSettings())
    assert bad.value.path == ("resources", "r", "deletion_policy")
    check_resources(stack("OS::Cinder::Volume", {"size": 1}), REGISTRY, LimitSettings())


def test_an_external_resource_is_not_checked_against_its_properties_schema() -> None:
    template = Template.from_document(
        {
            "heat_template_version": "2016-10-14",
            "resources": {"server": {"type": "OS::Nova::Server", "external_id": "abc"}},
        }
    )
    # Without external_id the missing flavor is refused; with it the server is only adopted.
    check_resources(build_stack(template, None, {}, strict=True), REGISTRY, LimitSettings())
    made = Template.from_document(
        {
            "heat_template_version": "2016-10-14",
            "resources": {"server": {"type": "OS::Nova::Server"}},
        }
    )
    with pytest.raises(PropertyError, match="flavor"):
        check_resources(build_stack(made, None, {}, strict=True), REGISTRY, LimitSettings())
