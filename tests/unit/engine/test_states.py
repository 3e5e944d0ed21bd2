"""The state vocabulary and the transition tables."""

from __future__ import annotations

import pytest

from thermik import errors
from thermik.engine import states
from thermik.engine.states import Action, State, Status


def s(text: str) -> State:
    return State.parse(text)


def test_states_print_as_heat_strings() -> None:
    assert str(State(Action.CREATE, Status.IN_PROGRESS)) == "CREATE_IN_PROGRESS"
    assert s("UPDATE_FAILED") == State(Action.UPDATE, Status.FAILED)
    assert len(states.ALL_STATES) == len(Action) * len(Status) == 36
    assert all(str(s(text)) == text for text in states.ALL_STATES)


def test_unknown_state_names_the_parameter() -> None:
    with pytest.raises(errors.InvalidRequest, match="unknown state 'CREATE_DONE'") as caught:
        State.parse("CREATE_DONE")
    assert caught.value.parameter == "status"


def test_settled() -> None:
    assert s("CREATE_COMPLETE").settled
    assert s("CREATE_FAILED").settled
    assert not s("CREATE_IN_PROGRESS").settled


@pytest.mark.parametrize(
    ("current", "target"),
    [
        ("INIT_COMPLETE", "CREATE_IN_PROGRESS"),
        ("INIT_COMPLETE", "ADOPT_IN_PROGRESS"),
        ("CREATE_IN_PROGRESS", "CREATE_COMPLETE"),
        ("CREATE_IN_PROGRESS", "CREATE_FAILED"),
        ("CREATE_IN_PROGRESS", "UPDATE_IN_PROGRESS"),
        ("UPDATE_IN_PROGRESS", "UPDATE_IN_PROGRESS"),
        ("CREATE_FAILED", "ROLLBACK_IN_PROGRESS"),
        ("UPDATE_FAILED", "ROLLBACK_IN_PROGRESS"),
        ("ROLLBACK_COMPLETE", "UPDATE_IN_PROGRESS"),
        ("UPDATE_IN_PROGRESS", "DELETE_IN_PROGRESS"),
        ("DELETE_FAILED", "DELETE_IN_PROGRESS"),
        ("CREATE_COMPLETE", "SUSPEND_IN_PROGRESS"),
        ("SUSPEND_COMPLETE", "RESUME_IN_PROGRESS"),
        ("SUSPEND_COMPLETE", "CHECK_IN_PROGRESS"),
        ("UPDATE_COMPLETE", "SNAPSHOT_IN_PROGRESS"),
        ("SNAPSHOT_COMPLETE", "RESTORE_IN_PROGRESS"),
        ("RESTORE_FAILED", "ROLLBACK_IN_PROGRESS"),
    ],
)
def test_legal_stack_edges(current: str, target: str) -> None:
    assert states.STACK.allows(s(current), s(target))
    states.check_transition(states.STACK, s(current), s(target))


@pytest.mark.parametrize(
    ("current", "target"),
    [
        ("SUSPEND_COMPLETE", "UPDATE_IN_PROGRESS"),
        ("DELETE_IN_PROGRESS", "UPDATE_IN_PROGRESS"),
        ("DELETE_COMPLETE", "DELETE_IN_PROGRESS"),
        ("CREATE_COMPLETE", "RESUME_IN_PROGRESS"),
        ("CHECK_FAILED", "ROLLBACK_IN_PROGRESS"),
        ("ROLLBACK_FAILED", "ROLLBACK_IN_PROGRESS"),
        ("CREATE_FAILED", "SUSPEND_IN_PROGRESS"),
        ("CREATE_COMPLETE", "CREATE_IN_PROGRESS"),
        ("CREATE_IN_PROGRESS", "UPDATE_COMPLETE"),
        ("INIT_COMPLETE", "UPDATE_IN_PROGRESS"),
        ("CREATE_IN_PROGRESS", "SNAPSHOT_IN_PROGRESS"),
    ],
)
def test_illegal_stack_edges_raise(current: str, target: str) -> None:
    assert not states.STACK.allows(s(current), s(target))
    with pytest.raises(errors.InvalidTransition) as caught:
        states.check_transition(states.STACK, s(current), s(target), stack="web")
    assert str(caught.value) == f"stack cannot go from {current} to {target}"
    assert caught.value.stack == "web"
    assert caught.value.http_status == 409


@pytest.mark.parametrize(
    ("current", "target", "legal"),
    [
        ("INIT_COMPLETE", "CREATE_IN_PROGRESS", True),
        ("CREATE_COMPLETE", "UPDATE_IN_PROGRESS", True),
        ("CREATE_FAILED", "UPDATE_IN_PROGRESS", True),
        ("CREATE_FAILED", "DELETE_IN_PROGRESS", True),
        ("INIT_COMPLETE", "DELETE_IN_PROGRESS", True),
        ("DELETE_FAILED", "DELETE_IN_PROGRESS", True),
        ("SUSPEND_COMPLETE", "RESUME_IN_PROGRESS", True),
        ("INIT_COMPLETE", "UPDATE_IN_PROGRESS", False),
        ("DELETE_COMPLETE", "UPDATE_IN_PROGRESS", False),
        ("DELETE_COMPLETE", "DELETE_IN_PROGRESS", False),
        ("CREATE_IN_PROGRESS", "DELETE_IN_PROGRESS", False),
        ("CREATE_COMPLETE", "ROLLBACK_IN_PROGRESS", False),
        ("INIT_COMPLETE", "CHECK_IN_PROGRESS", False),
    ],
)
def test_resource_edges(current: str, target: str, legal: bool) -> None:
    assert states.RESOURCE.allows(s(current), s(target)) is legal


def test_resource_error_names_the_resource() -> None:
    with pytest.raises(errors.InvalidTransition) as caught:
        states.check_transition(
            states.RESOURCE, s("DELETE_COMPLETE"), s("UPDATE_IN_PROGRESS"), resource="db"
        )
    assert str(caught.value) == (
        "resources.db: resource cannot go from DELETE_COMPLETE to UPDATE_IN_PROGRESS"
    )


@pytest.mark.parametrize("machine", [states.STACK, states.RESOURCE], ids=lambda m: m.kind)
def test_every_started_action_can_finish(machine: states.StateMachine) -> None:
    started = {to for _, to in machine.edges if to.status is Status.IN_PROGRESS}
    for state in started:
        assert machine.targets(state) >= {
            State(state.action, Status.COMPLETE),
            State(state.action, Status.FAILED),
        }


def test_stacks_never_show_abandon() -> None:
    assert not any(Action.ABANDON in (a.action, b.action) for a, b in states.STACK.edges)
