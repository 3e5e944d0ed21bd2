"""Stack actions, snapshots, abandon and adopt through the service."""

from __future__ import annotations

import pytest

from tests.unit.orchestration.conftest import CTX, TEMPLATE, create, settle
from thermik.api.boundary import (
    ListQuery,
    ResourceQuery,
    StackAction,
    StackRequest,
    StackUpdate,
)
from thermik.errors import NotFound
from thermik.orchestration import Orchestrator


@pytest.mark.parametrize(
    "actions",
    [
        (StackAction.SUSPEND, StackAction.RESUME),
        (StackAction.CHECK,),
    ],
)
def test_actions_converge(service: Orchestrator, actions: tuple[StackAction, ...]) -> None:
    stack = create(service)
    for action in actions:
        service.stack_action(CTX, stack, action)
        view = settle(service, stack)
        assert (view.action, view.status) == (action.value.upper(), "COMPLETE")


def test_snapshots(service: Orchestrator) -> None:
    stack = create(service)
    taken = service.create_snapshot(CTX, stack, "snap")
    assert (taken.name, taken.action) == ("snap", "SNAPSHOT")
    settle(service, stack)
    shown = service.show_snapshot(CTX, stack, taken.id)
    assert shown.status == "COMPLETE"
    assert [s.id for s in service.list_snapshots(CTX, stack)] == [taken.id]
    service.delete_snapshot(CTX, stack, taken.id)
    assert service.list_snapshots(CTX, stack) == []
    with pytest.raises(NotFound, match="Snapshot"):
        service.show_snapshot(CTX, stack, taken.id)
    with pytest.raises(NotFound):
        service.restore_snapshot(CTX, stack, taken.id)


def test_restore_goes_back_to_the_snapshot(service: Orchestrator) -> None:
    stack = create(service)
    taken = service.create_snapshot(CTX, stack, None)
    settle(service, stack)
    assert service.show_snapshot(CTX, stack, taken.id).status == "COMPLETE"
    service.update_stack(
        CTX, stack, StackUpdate(StackRequest(template=TEMPLATE, parameters={"word": "bye"}))
    )
    settle(service, stack)
    service.restore_snapshot(CTX, stack, taken.id)
    view = settle(service, stack)
    assert (view.action, view.status) == ("RESTORE", "COMPLETE"), view.status_reason
    assert {o.key: o.value for o in view.outputs or ()}["echo"] == "hello"
    assert view.parameters["secret"] == "s3cret"


def test_abandon_then_adopt_keeps_the_resources(service: Orchestrator) -> None:
    stack = create(service)
    before = {
        r.name: r.physical_resource_id for r in service.list_resources(CTX, stack, ResourceQuery())
    }
    document = service.abandon_stack(CTX, stack)
    settle(service, stack)
    assert service.list_stacks(CTX, ListQuery()).items == ()
    adopted = service.adopt_stack(CTX, StackRequest(name="again", adopt_data=document))
    view = settle(service, adopted)
    assert (view.action, view.status) == ("ADOPT", "COMPLETE")
    after = {
        r.name: r.physical_resource_id
        for r in service.list_resources(CTX, adopted, ResourceQuery())
    }
    assert after == before


def test_adopt_takes_the_abandoned_parameters_and_files(service: Orchestrator) -> None:
    template = {
        **TEMPLATE,
        "outputs": {
            "word": {"value": {"get_param": "word"}},
            "note": {"value": {"get_file": "note.txt"}},
        },
    }
    stack = create(
        service,
        template=template,
        parameters={"word": "kept", "size": 12},
        files={"note.txt": "from a file"},
    )
    document = service.abandon_stack(CTX, stack)
    settle(service, stack)
    adopted = service.adopt_stack(
        CTX, StackRequest(name="again", adopt_data=document, parameters={"size": 12})
    )
    view = settle(service, adopted)
    assert (view.action, view.status) == ("ADOPT", "COMPLETE"), view.status_reason
    assert view.parameters["word"] == "kept"
    assert {o.key: o.value for o in view.outputs or ()} == {"word": "kept", "note": "from a file"}
    overridden = service.adopt_stack(
        CTX, StackRequest(name="third", adopt_data=document, parameters={"word": "given"})
    )
    assert settle(service, overridden).parameters["word"] == "given"
