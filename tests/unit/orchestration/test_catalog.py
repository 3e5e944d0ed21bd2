"""Validation, resource types, template versions and functions, build info and services."""

from __future__ import annotations

import copy

import pytest

from tests.unit.orchestration.conftest import CTX, TEMPLATE
from thermik.api.boundary import StackRequest
from thermik.errors import InvalidInput, NotFound, ResourceTypeNotFound
from thermik.orchestration import Orchestrator


def test_validate_reports_parameters_and_environment(service: Orchestrator) -> None:
    result = service.validate_template(
        CTX, StackRequest(template=TEMPLATE, parameters={"word": "hi"})
    )
    assert result.description == "A small stack"
    word = result.parameters["word"]
    assert (word.type, word.default, word.value, word.has_value) == ("String", "hello", "hi", True)
    assert result.parameters["secret"].no_echo
    assert result.environment["parameters"] == {"word": "hi"}


def test_validate_needs_no_parameter_values(service: Orchestrator) -> None:
    template = copy.deepcopy(TEMPLATE)
    template["parameters"]["word"] = {"type": "string"}
    result = service.validate_template(CTX, StackRequest(template=template))
    assert not result.parameters["word"].has_default


def test_validate_rejects_unknown_types_and_properties(service: Orchestrator) -> None:
    template = copy.deepcopy(TEMPLATE)
    template["resources"]["x"] = {"type": "OS::Nope"}
    with pytest.raises(ResourceTypeNotFound, match=r"resources\.x\.type"):
        service.validate_template(CTX, StackRequest(template=template))
    template["resources"]["x"] = {"type": "OS::Heat::None"}
    template["resources"]["y"] = {"type": "OS::Heat::TestResource", "properties": {"nope": 1}}
    with pytest.raises(InvalidInput, match="Unknown Property nope"):
        service.validate_template(CTX, StackRequest(template=template))


RANDOM = """
heat_template_version: 2014-10-16
description: the random one
parameters:
  aparam: {type: number, default: 10}
resources:
  myres:
    type: OS::Heat::RandomString
    properties: {length: {get_param: aparam}}
"""
PARENT = {
    "heat_template_version": "2014-10-16",
    "parameters": {"pparam": {"type": "number", "default": 5}},
    "resources": {
        "nres": {"type": "mynested.yaml", "properties": {"aparam": {"get_param": "pparam"}}}
    },
}


def test_validate_registers_template_types_and_shows_nested_parameters(
    service: Orchestrator,
) -> None:
    # Two levels: mynested.yaml holds a template resource of mynested2.yaml, given a property
    # the inner template has no parameter for (Heat checks only the top level's).
    files = {
        "mynested.yaml": RANDOM.replace("OS::Heat::RandomString", "mynested2.yaml"),
        "mynested2.yaml": RANDOM,
    }
    request = StackRequest(template=PARENT, files=files)
    plain = service.validate_template(CTX, request)
    assert plain.environment["resource_registry"] == {
        "mynested.yaml": "mynested.yaml",
        "resources": {},
    }
    assert plain.nested_parameters == {}
    nested = service.validate_template(CTX, request, show_nested=True).nested_parameters
    nres = nested["nres"]
    assert (nres["Type"], nres["Description"]) == ("mynested.yaml", "the random one")
    # The parent gives aparam its value (pparam's default).
    assert (nres["Parameters"]["aparam"]["Default"], nres["Parameters"]["aparam"]["Value"]) == (
        10,
        5,
    )
    myres = nres["NestedParameters"]["myres"]
    assert myres["Type"] == "mynested2.yaml"
    assert "Value" not in myres["Parameters"]["aparam"]
    assert "NestedParameters" not in myres


def test_validate_says_an_invalid_version_as_heat_does(service: Orchestrator) -> None:
    template = {**TEMPLATE, "heat_template_version": "invalid"}
    with pytest.raises(InvalidInput, match=r"^The template version is invalid: "):
        service.validate_template(CTX, StackRequest(template=template))


def test_resource_types(service: Orchestrator) -> None:
    names = [view.name for view in service.list_resource_types(CTX)]
    assert "OS::Heat::TestResource" in names
    assert names == sorted(names)
    random = service.list_resource_types(CTX, name="Random")
    assert [view.name for view in random] == ["OS::Heat::RandomString"]
    assert random[0].description
    shown = service.show_resource_type(CTX, "OS::Heat::RandomString")
    assert "length" in shown["properties"]
    assert "description" not in shown
    described = service.show_resource_type(CTX, "OS::Heat::RandomString", with_description=True)
    assert str(described["description"]).startswith(random[0].description)
    with pytest.raises(NotFound, match="could not be found"):
        service.show_resource_type(CTX, "OS::Nope")
    with pytest.raises(InvalidInput, match="regular expression"):
        service.list_resource_types(CTX, name="(")


@pytest.mark.parametrize(("kind", "key"), [("hot", "parameters"), ("cfn", "Parameters")])
def test_resource_type_template(service: Orchestrator, kind: str, key: str) -> None:
    template = service.resource_type_template(CTX, "OS::Heat::RandomString", kind)
    assert "length" in template[key]
    # Named as Heat names it: after the type's last part, which its plugin class is called.
    resources = template["resources" if kind == "hot" else "Resources"]
    assert resources["RandomString"]["type" if kind == "hot" else "Type"] == (
        "OS::Heat::RandomString"
    )
    assert template["description" if kind == "hot" else "Description"] == (
        "Initial template of RandomString"
    )
    validated = service.validate_template(CTX, StackRequest(template=dict(template)))
    assert "length" in validated.parameters
    with pytest.raises(InvalidInput):
        service.resource_type_template(CTX, "OS::Heat::RandomString", "xml")


def test_template_versions_and_functions(service: Orchestrator) -> None:
    versions = {v.version: v for v in service.list_template_versions(CTX)}
    rocky = versions["heat_template_version.2018-08-31"]
    assert (rocky.type, rocky.aliases) == ("hot", ("heat_template_version.rocky",))
    assert versions["AWSTemplateFormatVersion.2010-09-09"].type == "cfn"
    functions = service.list_template_functions(CTX, "heat_template_version.2018-08-31")
    found = {f.name for f in functions}
    assert {"get_param", "get_attr", "str_replace"} <= found
    assert "equals" not in found
    with_conditions = service.list_template_functions(
        CTX, "heat_template_version.2018-08-31", with_condition_func=True
    )
    assert "equals" in {f.name for f in with_conditions}
    # Described as Heat describes them (heat-tempest-plugin compares get_file's word for word).
    described = {f.name: f.description for f in with_conditions}
    assert described["get_file"] == "A function for including a file inline."
    assert all(text.startswith("A function") for text in described.values()), described
    old = {
        f.name for f in service.list_template_functions(CTX, "heat_template_version.2013-05-23")
    }
    assert "repeat" not in old
    assert "Fn::Join" in old
    with pytest.raises(NotFound):
        service.list_template_functions(CTX, "heat_template_version.1999-01-01")


def test_build_info_and_services(service: Orchestrator) -> None:
    assert service.engine_revision(CTX)
    for view in service.list_services(CTX):
        assert view.status in ("up", "down")
