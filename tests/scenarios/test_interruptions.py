"""Supersession, cancel, timeouts and resuming a traversal after a restart."""

from __future__ import annotations

from tests.scenarios.simulator import World, chain
from thermik.engine.decide import decide
from thermik.engine.graph import Node
from thermik.engine.messages import (
    CancelRequested,
    CloseTraversal,
    DispatchNode,
    GraceExpired,
    RejectRequest,
    ResourceDone,
    ResumeTraversal,
    Supersede,
    TimeoutFired,
    TimerKind,
)
from thermik.engine.operations import NodeAction
from thermik.engine.states import Action, State, Status
from thermik.engine.traversal import Phase

DEPS = {"a": set(), "b": {"a"}, "c": {"b"}}
U = NodeAction.UPDATE


def created(deps: dict[str, set[str]] = DEPS) -> World:
    world = World()
    world.start(Action.CREATE, deps)
    world.run()
    return world


def test_a_new_update_supersedes_a_running_one_and_its_replies_are_fenced() -> None:
    world = created()
    world.hold("b")
    first = world.start(Action.UPDATE, DEPS)
    world.run()
    assert [c.name for c in world.pending] == ["b"]
    second = world.start(Action.UPDATE, {**DEPS, "d": {"a"}})
    assert first in world.closed
    world.release("b")
    world.run()
    assert world.stack == State(Action.UPDATE, Status.COMPLETE)
    assert world.current_traversal == second
    # The old traversal's reply for b did not dispatch c in the old traversal.
    assert [c.name for c in world.dispatched if c.traversal_id == first] == ["a", "b"]
    assert sorted(world.live()) == ["a", "b", "c", "d"]


def test_stale_replies_change_nothing() -> None:
    world = created()
    world.hold("b")
    first = world.start(Action.UPDATE, DEPS)
    world.run()
    world.start(Action.UPDATE, DEPS)
    state = world.state
    stale = ResourceDone(Node(world.live()["b"][0], True), first, None)
    decision = decide(state, stale)
    assert decision.state is state
    assert decision.commands == ()


def test_a_delete_supersedes_a_running_create_and_cancels_its_nodes() -> None:
    world = World()
    world.hold("a")
    first = world.start(Action.CREATE, DEPS)
    traversal = world.start(Action.DELETE)
    assert [c.message.node for c in world.cancelled] == [Node(1, True)]
    assert first in world.closed
    world.release("a")
    world.run()
    assert world.stack == State(Action.DELETE, Status.COMPLETE)
    assert world.live() == {}
    assert world.current_traversal == traversal


def test_supersede_from_elsewhere_closes_the_traversal() -> None:
    world = created()
    world.hold("a")
    traversal = world.start(Action.UPDATE, DEPS)
    world.feed(Supersede(traversal, by="other-engine"))
    assert world.phase is Phase.SUPERSEDED
    assert traversal in world.closed
    world.release("a")
    world.run()
    assert [c.name for c in world.dispatched if c.traversal_id == traversal] == ["a"]


def test_cancel_without_rollback_marks_failed_and_cancels_running_nodes() -> None:
    world = created()
    world.hold("b")
    traversal = world.start(Action.UPDATE, DEPS)
    world.run()
    world.feed(CancelRequested(traversal, rollback=False))
    assert world.stack == State(Action.UPDATE, Status.FAILED)
    assert world.stack_reason == "Stack UPDATE cancelled"
    assert [c.message.node.version_id for c in world.cancelled] == world.live()["b"]
    assert world.timers[-1].kind is TimerKind.GRACE
    world.run()
    assert world.closed[-1] == traversal
    assert world.state.rollback_started is False
    assert [c.name for c in world.dispatched if c.traversal_id == traversal] == ["a", "b"]


def test_cancel_with_rollback_starts_a_rollback() -> None:
    world = created()
    world.hold("b")
    traversal = world.start(Action.UPDATE, {**DEPS, "d": {"c"}})
    world.run()
    world.feed(CancelRequested(traversal, rollback=True))
    world.release("b")
    world.run()
    assert world.stack == State(Action.ROLLBACK, Status.COMPLETE)
    assert sorted(world.live()) == ["a", "b", "c"]


def test_cancel_of_a_delete_or_of_nothing_is_rejected() -> None:
    world = created()
    world.hold("c")
    traversal = world.start(Action.DELETE)
    world.feed(CancelRequested(traversal, rollback=False))
    world.feed(CancelRequested("unknown", rollback=False))
    assert [r.failure.type_name for r in world.rejected] == ["InvalidTransition"] * 2
    assert "cannot be cancelled" in world.rejected[0].failure.message
    assert world.stack == State(Action.DELETE, Status.IN_PROGRESS)


def test_cancel_with_rollback_is_rejected_for_operations_without_rollback() -> None:
    world = created()
    world.hold("a")
    traversal = world.start(Action.CHECK)
    world.feed(CancelRequested(traversal, rollback=True))
    (rejected,) = world.rejected
    assert isinstance(rejected, RejectRequest)
    assert "with rollback" in rejected.failure.message


def test_timeout_fails_the_stack_and_rolls_back() -> None:
    world = created()
    world.hold("b")
    traversal = world.start(Action.UPDATE, {**DEPS, "d": {"a"}}, timeout_seconds=60)
    world.run()
    world.feed(TimeoutFired(traversal))
    update_events = [(str(e.state), e.reason) for e in world.events if e.traversal_id == traversal]
    assert update_events[-1] == ("UPDATE_FAILED", "Timed out")
    assert len(world.cancelled) == 1
    world.release("b")
    world.run()
    assert world.stack == State(Action.ROLLBACK, Status.COMPLETE)
    assert sorted(world.live()) == ["a", "b", "c"]


def test_timeout_without_rollback_closes_after_the_grace_period() -> None:
    world = World()
    world.hold("a")
    traversal = world.start(Action.CREATE, DEPS, timeout_seconds=60, disable_rollback=True)
    world.pending.clear()  # the resource actor's reply is lost
    world.feed(TimeoutFired(traversal))
    assert world.stack == State(Action.CREATE, Status.FAILED)
    assert traversal not in world.closed
    world.feed(GraceExpired(traversal))
    assert world.closed == [traversal]
    world.feed(TimeoutFired(traversal))
    assert world.stack == State(Action.CREATE, Status.FAILED)


def test_a_late_timer_after_completion_is_ignored() -> None:
    world = created()
    before = world.state
    decision = decide(before, TimeoutFired("t1"))
    assert decision.commands == ()


def test_resume_continues_from_the_recorded_results() -> None:
    deps = chain(6)
    world = World()
    world.hold("r3")
    traversal = world.start(Action.CREATE, deps)
    world.run()
    graph = world.graphs[traversal]
    completed = {}
    for message in world.dispatched:
        if message.name != "r3":
            completed[message.node] = world.state.results[graph.index[message.node]]
    # A new engine resumes from the records; the running node r3 is dispatched again.
    fresh = World()
    fresh.rows, fresh.current_template, fresh.templates = world.rows, 1, world.templates
    fresh.stack, fresh.current_traversal = world.stack, traversal
    event = ResumeTraversal(traversal, Action.CREATE, graph, world.options, completed, {})
    fresh.feed(event)
    assert [c.name for c in fresh.dispatched] == ["r3"]
    fresh.run()
    assert fresh.stack == State(Action.CREATE, Status.COMPLETE)
    assert [c.name for c in fresh.dispatched] == ["r3", "r4", "r5"]


def test_check_carries_on_after_failures_and_reports_them() -> None:
    world = created()
    world.fail_on[("a", NodeAction.CHECK)] = 1
    traversal = world.start(Action.CHECK)
    world.run()
    assert world.stack == State(Action.CHECK, Status.FAILED)
    # As Heat: each resource's own failure reason, after its name.
    assert world.stack_reason.startswith(
        "Resource CHECK failed: a: Resource CHECK failed: ResourceInError: "
    )
    assert [name for name, _ in world.order(traversal)] == ["a", "b", "c"]
    assert world.state.rollback_started is False


def test_suspend_runs_dependents_first_and_resume_the_other_way() -> None:
    world = created()
    suspend = world.start(Action.SUSPEND)
    world.run()
    assert world.stack == State(Action.SUSPEND, Status.COMPLETE)
    assert world.order(suspend) == [(n, NodeAction.SUSPEND) for n in "cba"]
    resume = world.start(Action.RESUME)
    world.run()
    assert world.stack == State(Action.RESUME, Status.COMPLETE)
    assert world.order(resume) == [(n, NodeAction.RESUME) for n in "abc"]


def test_snapshot_visits_every_resource() -> None:
    world = created()
    traversal = world.start(Action.SNAPSHOT)
    world.run()
    assert world.stack == State(Action.SNAPSHOT, Status.COMPLETE)
    assert world.order(traversal) == [(n, NodeAction.SNAPSHOT) for n in "abc"]


def test_dispatch_commands_come_after_the_result_is_persisted() -> None:
    world = created()
    world.hold("a")
    traversal = world.start(Action.UPDATE, DEPS)
    message = world.pending.pop()
    decision = decide(world.state, world.perform(message))
    kinds = [type(c).__name__ for c in decision.commands]
    assert kinds == ["PersistNodeResult", "DispatchNode"]
    assert isinstance(decision.commands[1], DispatchNode)
    assert not any(isinstance(c, CloseTraversal) for c in decision.commands)
    assert decision.state.traversal_id == traversal
