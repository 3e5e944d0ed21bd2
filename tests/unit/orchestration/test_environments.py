"""Environments as Heat merges them: the request's, then its environment files in order."""

from __future__ import annotations

import pytest

from tests.unit.orchestration.conftest import CTX, create, settle
from thermik.api.boundary import StackRequest, StackUpdate
from thermik.errors import EnvironmentError_
from thermik.orchestration import Orchestrator

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "parameters": {
        "a": {"type": "string", "default": "template"},
        "b": {"type": "string", "default": "template"},
        "c": {"type": "string", "default": "template"},
    },
    "resources": {"thing": {"type": "My::Thing"}},
    "outputs": {
        "abc": {
            "value": {
                "list_join": ["/", [{"get_param": "a"}, {"get_param": "b"}, {"get_param": "c"}]]
            }
        },
        "kind": {"value": {"get_resource": "thing"}},
    },
}
FIRST = "parameters: {a: first, b: first}\nresource_registry: {My::Thing: OS::Heat::None}\n"
SECOND = "parameters: {b: second}\nparameter_defaults: {c: default}\n"


def output(service: Orchestrator, name: str, key: str) -> object:
    stack = service.identify_stack(CTX, name)
    return service.show_output(CTX, stack, key).value


def test_files_merge_in_order_over_the_request(service: Orchestrator) -> None:
    stack = create(
        service,
        template=TEMPLATE,
        environment={"parameters": {"a": "body", "b": "body", "c": "body"}},
        parameters={"a": "param"},
        files={"1.yaml": FIRST, "2.yaml": SECOND},
        environment_files=("1.yaml", "2.yaml"),
    )
    assert output(service, "s1", "abc") == "first/second/body"
    assert service.show_stack(CTX, stack).parameters == {"a": "first", "b": "second", "c": "body"}
    environment = service.stack_environment(CTX, stack)
    assert environment["resource_registry"]["My::Thing"] == "OS::Heat::None"
    assert environment["parameter_defaults"] == {"c": "default"}


def test_request_parameters_win_over_the_request_environment(service: Orchestrator) -> None:
    create(
        service,
        template=TEMPLATE,
        environment="parameters: {a: body}\nresource_registry:\n  My::Thing: OS::Heat::None\n",
        parameters={"a": "param", "b": "param"},
    )
    assert output(service, "s1", "abc") == "param/param/template"


def test_patch_merges_over_the_stored_environment(service: Orchestrator) -> None:
    stack = create(
        service,
        template=TEMPLATE,
        environment={"resource_registry": {"My::Thing": "OS::Heat::None"}},
        parameters={"a": "one", "b": "one"},
    )
    patch = StackUpdate(
        StackRequest(parameters={"b": "two"}), existing=True, clear_parameters=("a",)
    )
    service.update_stack(CTX, stack, patch)
    assert settle(service, stack).status == "COMPLETE"
    assert output(service, "s1", "abc") == "template/two/template"
    assert service.stack_environment(CTX, stack)["resource_registry"]["My::Thing"] == (
        "OS::Heat::None"
    )


def test_a_bad_environment_file_is_named(service: Orchestrator) -> None:
    request = StackRequest(
        name="s1",
        template=TEMPLATE,
        files={"bad.yaml": "parameters: [not, a, map]\n"},
        environment_files=("bad.yaml",),
    )
    with pytest.raises(EnvironmentError_, match=r'bad\.yaml: .*"parameters" must be a map'):
        service.create_stack(CTX, request)
