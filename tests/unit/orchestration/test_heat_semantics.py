"""Heat's semantics where Thermik used to differ, each checked against what real Heat 27 does
with the same template (``heat_cases.py`` of the project's reference notes)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from tests.unit.orchestration.conftest import CTX, create, request, settle
from thermik.api.boundary import StackRequest, StackUpdate
from thermik.errors import ThermikError
from thermik.orchestration import Orchestrator

DEPENDS: dict[str, Any] = {
    "heat_template_version": "2016-10-14",
    "resources": {
        "a": {"type": "OS::Heat::TestResource", "properties": {"value": "a"}},
        "b": {"type": "OS::Heat::TestResource", "properties": {"value": "b"}},
        "c": {"type": "OS::Heat::TestResource", "properties": {"value": "c"}, "depends_on": "a"},
    },
}


def states(service: Orchestrator, stack: Any) -> dict[str, tuple[str, str | None]]:
    return {
        name: (f"{view.action}_{view.status}", view.physical_resource_id)
        for name in ("a", "b", "c")
        for view in [service.show_resource(CTX, stack, name)]
    }


def test_a_change_of_depends_on_alone_updates_the_resource_in_place(
    service: Orchestrator,
) -> None:
    # Heat: c UPDATE_COMPLETE with the same physical id, a and b kept CREATE_COMPLETE.
    stack = create(service, template=DEPENDS)
    before = states(service, stack)
    changed = copy.deepcopy(DEPENDS)
    changed["resources"]["c"]["depends_on"] = ["a", "b"]
    service.update_stack(CTX, stack, StackUpdate(StackRequest(template=changed)))
    view = settle(service, stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    after = states(service, stack)
    assert after["c"] == ("UPDATE_COMPLETE", before["c"][1])
    assert after["a"] == before["a"]
    assert after["b"] == before["b"]
    # The same template again changes nothing.
    service.update_stack(CTX, stack, StackUpdate(StackRequest(template=changed)))
    settle(service, stack)
    assert states(service, stack) == after


def test_a_function_of_a_later_version_is_data(service: Orchestrator) -> None:
    # Heat: {str_split: [",", "a,b"]} in 2013-05-23 is that map, not a call (nor an error).
    template = {
        "heat_template_version": "2013-05-23",
        "resources": {
            "v": {
                "type": "OS::Heat::Value",
                "properties": {"value": {"str_split": [",", "a,b"]}},
            }
        },
        "outputs": {"out": {"value": {"get_attr": ["v", "value"]}}},
    }
    stack = create(service, template=template)
    view = settle(service, stack)
    assert {o.key: o.value for o in view.outputs or ()} == {"out": {"str_split": [",", "a,b"]}}


INNER = {
    "heat_template_version": "2016-10-14",
    "parameters": {"word": {"type": "string"}},
    "resources": {
        "v": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "word"}}}
    },
    "outputs": {"said": {"value": {"get_attr": ["v", "value"]}}},
}
OUTER = {
    "heat_template_version": "2016-10-14",
    "resources": {"inner": {"type": "inner.yaml"}},
    "outputs": {"out": {"value": {"get_attr": ["inner", "said"]}}},
}


def test_parameter_defaults_fill_a_nested_templates_parameters(service: Orchestrator) -> None:
    # Heat: the nested parameter without a default takes the environment's parameter_defaults.
    files = {"inner.yaml": json.dumps(INNER)}
    environment = {"parameter_defaults": {"word": "from-defaults"}}
    stack = create(service, template=OUTER, files=files, environment=environment)
    view = settle(service, stack)
    assert {o.key: o.value for o in view.outputs or ()} == {"out": "from-defaults"}


def test_a_nested_parameter_without_any_value_is_still_refused(service: Orchestrator) -> None:
    files = {"inner.yaml": json.dumps(INNER)}
    with pytest.raises(ThermikError, match="Property word not assigned"):
        service.create_stack(CTX, request(template=OUTER, files=files))


def bad_attr(where: str) -> dict[str, Any]:
    reference = {"get_attr": ["r", "nonexistent"]}
    template: dict[str, Any] = {
        "heat_template_version": "2016-10-14",
        "resources": {"r": {"type": "OS::Heat::RandomString"}},
    }
    if where == "property":
        value = {"type": "OS::Heat::Value", "properties": {"value": reference}}
        template["resources"]["v"] = value
    else:
        template["outputs"] = {"out": {"value": reference}}
    return template


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("property", "resources.v.properties.value.get_attr"),
        ("output", "outputs.out.value.get_attr"),
    ],
)
def test_get_attr_of_an_attribute_the_type_lacks_is_refused_as_heat_refuses_it(
    service: Orchestrator, where: str, message: str
) -> None:
    # Heat 27: StackValidationFailed "<path>: The Referenced Attribute (r nonexistent) is
    # incorrect." at create, for a property and for an output alike.
    with pytest.raises(ThermikError) as info:
        service.create_stack(CTX, request(template=bad_attr(where)))
    assert str(info.value) == f"{message}: The Referenced Attribute (r nonexistent) is incorrect."


def test_get_attr_of_attributes_every_resource_or_a_dynamic_type_has_is_accepted(
    service: Orchestrator,
) -> None:
    template = {
        "heat_template_version": "2016-10-14",
        "resources": {"r": {"type": "OS::Heat::RandomString"}, "n": {"type": "OS::Heat::None"}},
        "outputs": {
            "show": {"value": {"get_attr": ["r", "show"]}},
            "value": {"value": {"get_attr": ["r", "value"]}},
            "anything": {"value": {"get_attr": ["n", "anything"]}},
        },
    }
    create(service, template=template)


REPLACED: dict[str, Any] = {
    "heat_template_version": "2016-10-14",
    "resources": {
        "test1": {"type": "OS::Heat::TestResource", "properties": {"value": "one"}},
        "after": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_resource": "test1"}},
        },
    },
}


def test_rollback_after_a_failed_replacement_leaves_the_original_updated(
    service: Orchestrator,
) -> None:
    # Heat 27 (convergence): ROLLBACK_COMPLETE; test1 keeps its physical resource and is
    # UPDATE_COMPLETE; after, which did not change, stays CREATE_COMPLETE.
    stack = create(service, template=REPLACED, disable_rollback=False)
    before = {n: service.show_resource(CTX, stack, n) for n in ("test1", "after")}
    failing = copy.deepcopy(REPLACED)
    failing["resources"]["test1"]["properties"] = {
        "value": "two",
        "update_replace": True,
        "fail": True,
    }
    request_ = StackRequest(template=failing, disable_rollback=False)
    service.update_stack(CTX, stack, StackUpdate(request_))
    view = settle(service, stack)
    for _ in range(3):  # the update's failure, then the rollback it starts
        if view.action == "ROLLBACK" and view.status != "IN_PROGRESS":
            break
        view = settle(service, stack)
    assert (view.action, view.status) == ("ROLLBACK", "COMPLETE"), view.status_reason
    after = {n: service.show_resource(CTX, stack, n) for n in ("test1", "after")}
    assert after["test1"].physical_resource_id == before["test1"].physical_resource_id
    assert (after["test1"].action, after["test1"].status) == ("UPDATE", "COMPLETE")
    assert after["after"].physical_resource_id == before["after"].physical_resource_id
    assert (after["after"].action, after["after"].status) == ("CREATE", "COMPLETE")
