"""Bad requests get one clear error naming what is wrong, and change nothing stored."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.unit.orchestration.conftest import CTX, TEMPLATE, create, request, settle
from thermik.api.boundary import (
    EventQuery,
    ListQuery,
    StackAction,
    StackIdentity,
    StackRequest,
    StackUpdate,
)
from thermik.conf.settings import LimitSettings
from thermik.errors import (
    DuplicateName,
    InvalidInput,
    InvalidSignal,
    InvalidTransition,
    ParameterError,
    PropertyError,
    ResourceNotFound,
    ResourceTypeNotFound,
    StackNotFound,
    TemplateSyntaxError,
    TemplateTooLarge,
    ThermikError,
)
from thermik.orchestration import Orchestrator


def with_resources(**resources: Any) -> dict[str, Any]:
    template = copy.deepcopy(TEMPLATE)
    template["resources"].update(resources)
    return template


def assert_nothing_stored(service: Orchestrator) -> None:
    assert service.list_stacks(CTX, ListQuery(show_deleted=True)).items == ()


@pytest.mark.parametrize(
    ("create_request", "error", "text"),
    [
        (
            request(template=with_resources(bad={"type": "OS::No::Such"})),
            ResourceTypeNotFound,
            r"resources\.bad\.type: The Resource Type \(OS::No::Such\) could not be found",
        ),
        (
            request(
                template=with_resources(
                    bad={"type": "OS::Heat::TestResource", "properties": {"colour": "red"}}
                )
            ),
            PropertyError,
            r"resources\.bad\.properties: Unknown Property colour",
        ),
        (
            request(
                template=with_resources(
                    bad={"type": "OS::Heat::RandomString", "properties": {"length": "many"}}
                )
            ),
            PropertyError,
            r"resources\.bad\.properties\.length",
        ),
        (
            request(parameters={"size": "big"}),
            ParameterError,
            r"parameters\.size",
        ),
        (
            request(parameters={"nope": 1}),
            ParameterError,
            r"The Parameter \(nope\) was not defined in template",
        ),
        (request(name="1bad"), InvalidInput, "Invalid stack name 1bad"),
        (request(name=""), InvalidInput, "stack name is required"),
        (
            StackRequest(name="s1", template_url="http://example.com/t.yaml"),
            InvalidInput,
            "template_url is not supported",
        ),
        (StackRequest(name="s1"), InvalidInput, "No template specified"),
        (request(template="resources: [unclosed"), TemplateSyntaxError, "template"),
        (
            request(environment={"parameters": {"word": "x"}, "nonsense": {}}),
            InvalidInput,
            'environment has wrong section "nonsense"',
        ),
        (
            request(environment_files=("env.yaml",)),
            InvalidInput,
            "Environment file env.yaml is not in the files map",
        ),
    ],
)
def test_invalid_create_stores_nothing(
    service: Orchestrator, create_request: StackRequest, error: type[ThermikError], text: str
) -> None:
    with pytest.raises(error, match=text):
        service.create_stack(CTX, create_request)
    assert_nothing_stored(service)


def test_property_error_names_the_resource(service: Orchestrator) -> None:
    template = with_resources(bad={"type": "OS::Heat::RandomString", "properties": {"length": 0}})
    with pytest.raises(PropertyError) as caught:
        service.create_stack(CTX, request(template=template))
    assert caught.value.resource == "bad"


def test_too_many_resources(service: Orchestrator) -> None:
    limited = Orchestrator(
        service.store, service.registry, service.runtime, LimitSettings(max_resources_per_stack=2)
    )
    with pytest.raises(TemplateTooLarge, match="max_resources_per_stack"):
        limited.create_stack(CTX, request())
    assert_nothing_stored(service)


def test_duplicate_name_in_a_tenant(service: Orchestrator) -> None:
    stack = create(service)
    with pytest.raises(DuplicateName, match=r"The Stack \(s1\) already exists"):
        service.create_stack(CTX, request())
    with pytest.raises(DuplicateName):
        service.preview_stack(CTX, request())
    listed = service.list_stacks(CTX, ListQuery(show_deleted=True)).items
    assert [v.identity for v in listed] == [stack]


def test_unknown_stack(service: Orchestrator) -> None:
    ghost = StackIdentity("ghost", "00000000-0000-0000-0000-000000000000")
    with pytest.raises(StackNotFound, match=r"The Stack \(ghost\) could not be found"):
        service.show_stack(CTX, ghost)
    with pytest.raises(StackNotFound):
        service.update_stack(CTX, ghost, StackUpdate(request()))
    with pytest.raises(StackNotFound):
        service.identify_stack(CTX, "ghost")
    stack = create(service)
    with pytest.raises(StackNotFound):
        service.show_stack(CTX, StackIdentity("other-name", stack.id))


def test_rejected_updates_change_nothing(service: Orchestrator) -> None:
    stack = create(service)
    before = service.show_stack(CTX, stack)
    bad = [
        (
            StackUpdate(StackRequest(template=with_resources(bad={"type": "Nope::Nope"}))),
            ResourceTypeNotFound,
        ),
        (StackUpdate(StackRequest(template=TEMPLATE, parameters={"size": 12})), ParameterError),
        (StackUpdate(StackRequest(parameters={"size": 9}), existing=True), ParameterError),
        (StackUpdate(StackRequest()), InvalidInput),
    ]
    for update, error in bad:
        with pytest.raises(error):
            service.update_stack(CTX, stack, update)
    after = service.show_stack(CTX, stack)
    assert (after.action, after.status, after.parameters) == (
        "CREATE",
        "COMPLETE",
        before.parameters,
    )
    assert service.stack_template(CTX, stack) == TEMPLATE


def test_immutable_parameter_message(service: Orchestrator) -> None:
    stack = create(service)
    with pytest.raises(ParameterError, match="immutable and may not be updated: size"):
        service.update_stack(
            CTX, stack, StackUpdate(StackRequest(parameters={"size": 9}), existing=True)
        )


def slow_delete_template() -> dict[str, Any]:
    template = copy.deepcopy(TEMPLATE)
    template["resources"]["first"]["properties"]["action_wait_secs"] = {"delete": 2}
    return template


def test_update_of_a_stack_being_deleted(service: Orchestrator) -> None:
    stack = create(service, template=slow_delete_template())
    service.delete_stack(CTX, stack)
    with pytest.raises(InvalidTransition, match="Updating a stack when it is deleting"):
        service.update_stack(CTX, stack, StackUpdate(StackRequest(template=TEMPLATE)))
    with pytest.raises(InvalidTransition, match="already has an action"):
        service.stack_action(CTX, stack, StackAction.SUSPEND)
    view = settle(service, stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE")


def test_cancel_needs_a_running_operation(service: Orchestrator) -> None:
    stack = create(service)
    for action in (StackAction.CANCEL_UPDATE, StackAction.CANCEL_WITHOUT_ROLLBACK):
        with pytest.raises(InvalidTransition, match="CREATE_COMPLETE is not supported"):
            service.stack_action(CTX, stack, action)
    assert service.show_stack(CTX, stack).status == "COMPLETE"


def test_resume_of_a_stack_not_suspended(service: Orchestrator) -> None:
    stack = create(service)
    with pytest.raises(InvalidTransition):
        service.stack_action(CTX, stack, StackAction.RESUME)
    view = service.show_stack(CTX, stack)
    assert (view.action, view.status) == ("CREATE", "COMPLETE")


def test_signals_to_resources_that_take_none_or_bad_data(service: Orchestrator) -> None:
    handle = {"type": "OS::Heat::WaitConditionHandle"}
    stack = create(service, template=with_resources(handle=handle))
    events = service.list_events(CTX, stack, EventQuery())
    with pytest.raises(InvalidSignal, match=r"Resource first \(OS::Heat::TestResource\) does not"):
        service.signal_resource(CTX, stack, "first", {"status": "SUCCESS"})
    with pytest.raises(InvalidSignal, match="must be a JSON object, not list"):
        service.signal_resource(CTX, stack, "handle", ["not", "a", "map"])
    with pytest.raises(InvalidSignal, match="must be a JSON object, not str"):
        service.signal_resource(CTX, stack, "handle", "text")
    with pytest.raises(InvalidSignal):
        service.signal_resource(CTX, stack, "handle", {"status": "MAYBE"})
    with pytest.raises(ResourceNotFound):
        service.signal_resource(CTX, stack, "nope", None)
    assert service.list_events(CTX, stack, EventQuery()) == events
    after = service.show_stack(CTX, stack)
    assert (after.action, after.status) == ("CREATE", "COMPLETE")
