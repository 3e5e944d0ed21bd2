"""Validate, resource types and template versions."""

from __future__ import annotations

import falcon.testing
import pytest

from tests.unit.api.conftest import TEMPLATE, tenant_path
from thermik.api.boundary import ValidationView
from thermik.api.v1.validate import validation_document


def test_validate(client: falcon.testing.TestClient) -> None:
    result = client.simulate_post(
        tenant_path("/validate"),
        query_string="show_nested=True&ignore_errors=E1,E2",
        json={"template": TEMPLATE, "parameters": {"flavor": "big"}},
    )
    assert result.status_code == 200, result.text
    body = result.json
    assert body["Description"] == "A test stack"
    assert body["Parameters"]["flavor"] == {
        "Type": "String",
        "Description": "Flavor",
        "Label": "flavor",
        "NoEcho": "false",
        "Default": "m1.small",
        "Value": "big",
    }
    assert body["Parameters"]["password"]["NoEcho"] == "true"
    assert "ParameterGroups" not in body
    assert body["Environment"]["parameters"] == {"flavor": "big"}


def test_validate_software_config_template_from_osc(client: falcon.testing.TestClient) -> None:
    template = {
        "heat_template_version": "2013-05-23",
        "resources": {"c": {"type": "OS::Heat::SoftwareConfig", "properties": {"group": "x"}}},
    }
    assert (
        client.simulate_post(tenant_path("/validate"), json={"template": template}).status_code
        == 200
    )


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({}, 400, "template: No template specified"),
        ({"template": {"resources": {}}}, 400, "Template version was not provided"),
        (
            {
                "template": {
                    "heat_template_version": "2018-08-31",
                    "resources": {"r": {"type": "Nope"}},
                }
            },
            400,
            "resources.r: The Resource Type (Nope) could not be found.",
        ),
        ({"template": "a: [b"}, 400, None),
    ],
)
def test_validate_failures(
    client: falcon.testing.TestClient, body: dict[str, object], status: int, message: str | None
) -> None:
    result = client.simulate_post(tenant_path("/validate"), json=body)
    assert result.status_code == status
    if message is not None:
        assert result.json["error"]["message"] == message


def test_resource_types(client: falcon.testing.TestClient) -> None:
    names = client.simulate_get(tenant_path("/resource_types")).json["resource_types"]
    assert "OS::Heat::None" in names
    described = client.simulate_get(
        tenant_path("/resource_types"), query_string="with_description=True&name=None"
    ).json["resource_types"]
    assert described == [{"resource_type": "OS::Heat::None", "description": "Does nothing."}]


def test_resource_type_show_and_template(client: falcon.testing.TestClient) -> None:
    shown = client.simulate_get(tenant_path("/resource_types/OS::Heat::None"))
    assert shown.status_code == 200
    assert shown.json["resource_type"] == "OS::Heat::None"
    # As in Heat, the description only with_description.
    assert "description" not in shown.json
    described = client.simulate_get(
        tenant_path("/resource_types/OS::Heat::None"), query_string="with_description=true"
    )
    assert described.json["description"] == "Does nothing."
    bad_flag = client.simulate_get(
        tenant_path("/resource_types/OS::Heat::None"), query_string="with_description=maybe"
    )
    assert bad_flag.status_code == 400
    cfn = client.simulate_get(tenant_path("/resource_types/OS::Heat::None/template"))
    assert "AWSTemplateFormatVersion" in cfn.json
    hot = client.simulate_get(
        tenant_path("/resource_types/OS::Heat::None/template"), query_string="template_type=HOT"
    )
    assert "heat_template_version" in hot.json
    bad = client.simulate_get(
        tenant_path("/resource_types/OS::Heat::None/template"), query_string="template_type=xml"
    )
    assert bad.status_code == 400
    assert client.simulate_get(tenant_path("/resource_types/Nope")).status_code == 404


def test_template_versions_and_functions(client: falcon.testing.TestClient) -> None:
    versions = client.simulate_get(tenant_path("/template_versions")).json["template_versions"]
    assert {
        "version": "heat_template_version.2018-08-31",
        "type": "hot",
        "aliases": ["heat_template_version.rocky"],
    } in versions
    path = tenant_path("/template_versions/heat_template_version.2018-08-31/functions")
    functions = client.simulate_get(path, query_string="with_condition_func=True").json
    assert {"functions": "equals", "description": "A function for comparing."} in functions[
        "template_functions"
    ]
    assert client.simulate_get(tenant_path("/template_versions/nope/functions")).status_code == 404


def test_validate_document_shows_nested_parameters_only_when_there_are_some() -> None:
    view = ValidationView(description="d", parameters={})
    assert "NestedParameters" not in validation_document(view)
    nested = {"nres": {"Description": "n", "Parameters": {}, "Type": "nested.yaml"}}
    shown = validation_document(
        ValidationView(description="d", parameters={}, nested_parameters=nested)
    )
    assert shown["NestedParameters"] == nested
