"""``external_id`` through the service, as heat-tempest-plugin's ``test_external_ref`` drives
Heat: the resource adopts the physical resource it names (nothing is created, and a delete
leaves it), an update keeping it changes nothing, and an update that sets or changes it fails."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.orchestration.conftest import CTX, create, request, settle
from thermik.api.boundary import EventQuery, StackRequest, StackUpdate
from thermik.errors import TemplateError
from thermik.orchestration import Orchestrator

PLAIN = {
    "heat_template_version": "2016-10-14",
    "resources": {"test1": {"type": "OS::Heat::TestResource"}},
}


def external(external_id: Any = "foobar") -> dict[str, Any]:
    return {
        "heat_template_version": "2016-10-14",
        "parameters": {"ref": {"type": "string", "default": "foobar"}},
        "resources": {"test1": {"type": "OS::Heat::TestResource", "external_id": external_id}},
        "outputs": {"str": {"value": {"get_resource": "test1"}}},
    }


def outputs(service: Orchestrator, stack: Any) -> dict[str, Any]:
    view = settle(service, stack)
    return {o.key: o.value for o in view.outputs or ()}


@pytest.mark.parametrize("external_id", ["foobar", {"get_param": "ref"}], ids=["literal", "param"])
def test_create_adopts_the_external_resource(service: Orchestrator, external_id: Any) -> None:
    stack = create(service, template=external(external_id))
    assert outputs(service, stack) == {"str": "foobar"}
    resource = service.show_resource(CTX, stack, "test1")
    assert resource.physical_resource_id == "foobar"
    assert (resource.action, resource.status) == ("ADOPT", "COMPLETE")
    events = service.list_events(CTX, stack, EventQuery(resource_name="test1"))
    assert [e.action for e in events] == ["ADOPT", "ADOPT"]


def test_an_update_keeping_the_external_id_changes_nothing(service: Orchestrator) -> None:
    stack = create(service, template=external())
    before = service.show_resource(CTX, stack, "test1")
    service.update_stack(CTX, stack, StackUpdate(StackRequest(template=external())))
    view = settle(service, stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    after = service.show_resource(CTX, stack, "test1")
    assert (after.action, after.physical_resource_id) == ("ADOPT", before.physical_resource_id)


@pytest.mark.parametrize(
    ("first", "then"),
    [(PLAIN, external()), (external(), external("other")), (external(), PLAIN)],
    ids=["set", "changed", "dropped"],
)
def test_an_update_that_sets_or_changes_the_external_id_fails(
    service: Orchestrator, first: dict[str, Any], then: dict[str, Any]
) -> None:
    stack = create(service, template=first, disable_rollback=True)
    service.update_stack(
        CTX, stack, StackUpdate(StackRequest(template=then, disable_rollback=True))
    )
    view = settle(service, stack)
    assert (view.action, view.status) == ("UPDATE", "FAILED")
    assert view.status_reason.endswith(
        "Update to property external_id of test1 (OS::Heat::TestResource) is not supported."
    ), view.status_reason


def test_an_external_resource_may_not_depend_on_another(service: Orchestrator) -> None:
    template = external()
    template["resources"]["other"] = {"type": "OS::Heat::None"}
    template["resources"]["test1"]["depends_on"] = "other"
    with pytest.raises(TemplateError, match="may not depend on other resources"):
        service.create_stack(CTX, request(template=template))


def test_an_external_resource_needs_none_of_its_required_properties(
    service: Orchestrator,
) -> None:
    # OS::Heat::Value requires a value; adopted by external_id it is not made from it (Heat).
    template = {
        "heat_template_version": "2016-10-14",
        "resources": {"adopted": {"type": "OS::Heat::Value", "external_id": "known"}},
    }
    stack = create(service, template=template)
    view = settle(service, stack)
    assert (view.action, view.status) == ("CREATE", "COMPLETE"), view.status_reason
    assert service.show_resource(CTX, stack, "adopted").physical_resource_id == "known"
