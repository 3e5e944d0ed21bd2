"""decide() one event at a time: fencing, immutability, replacement edge cases, errors."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from thermik.engine.decide import decide
from thermik.engine.graph import ConvergenceGraph, Node, build_graph, graph_for
from thermik.engine.messages import (
    CancelNode,
    CancelRequested,
    CloseTraversal,
    CreateReplacementVersion,
    DispatchNode,
    MarkStackComplete,
    NodeData,
    PersistNodeResult,
    PersistStackState,
    RecordEvent,
    RejectRequest,
    ReplacementCreated,
    ResourceDone,
    ResourceFailed,
    ResourceNeedsReplacement,
    ResumeTraversal,
    ShellFault,
    StartRollback,
    StartTraversal,
    Supersede,
    TraversalOptions,
)
from thermik.engine.operations import NodeAction
from thermik.engine.states import Action, State
from thermik.engine.traversal import Decision, Phase, TraversalState
from thermik.engine.versions import ResourceVersion
from thermik.errors import Failure

INIT = State.parse("INIT_COMPLETE")
LIVE = State.parse("CREATE_COMPLETE")
BOOM = Failure("ResourceInError", "boom")


def graph_of(deps: dict[str, set[str]], state: State = INIT) -> ConvergenceGraph:
    versions = [ResourceVersion(i + 1, name, state) for i, name in enumerate(deps)]
    return build_graph(versions, deps, {v.name: v.id for v in versions})


def start(
    deps: dict[str, set[str]], operation: Action = Action.CREATE, **options: Any
) -> Decision:
    graph = graph_of(deps)
    event = StartTraversal("t1", operation, graph, TraversalOptions(**options))
    return decide(TraversalState.idle(), event)


def dispatched(decision: Decision) -> list[tuple[Node, NodeAction]]:
    return [
        (c.message.node, c.message.action)
        for c in decision.commands
        if isinstance(c, DispatchNode)
    ]


def done(node: Node, name: str, traversal: str = "t1") -> ResourceDone:
    return ResourceDone(node, traversal, NodeData(node.version_id, name, name, {}, LIVE))


def test_start_dispatches_leaves_and_records_the_start() -> None:
    decision = start({"a": set(), "b": set(), "c": {"a", "b"}})
    assert dispatched(decision) == [
        (Node(1, True), NodeAction.CREATE),
        (Node(2, True), NodeAction.CREATE),
    ]
    assert isinstance(decision.commands[0], RecordEvent)
    assert decision.state.phase is Phase.RUNNING


def test_decide_never_changes_the_state_it_was_given() -> None:
    first = start({"a": set(), "b": {"a"}})
    before = dataclasses.asdict(first.state)
    second = decide(first.state, done(Node(1, True), "a"))
    assert dataclasses.asdict(first.state) == before
    again = decide(first.state, done(Node(1, True), "a"))
    assert again.commands == second.commands
    assert dispatched(second) == [(Node(2, True), NodeAction.CREATE)]
    assert second.commands[1].message.input_data["a"].version_id == 1  # type: ignore[union-attr]


def test_duplicate_unknown_and_stale_replies_are_ignored() -> None:
    state = decide(start({"a": set(), "b": set()}).state, done(Node(1, True), "a")).state
    for event in (
        done(Node(1, True), "a"),  # duplicate
        done(Node(9, True), "zz"),  # unknown node
        done(Node(2, True), "b", traversal="t0"),  # another traversal
        ResourceFailed(Node(2, False), "t1", BOOM),  # a node that was never dispatched
        Supersede("t0", by="t1"),
    ):
        decision = decide(state, event)
        assert decision.state is state
        assert decision.commands == ()


def test_the_idle_state_ignores_replies() -> None:
    idle = TraversalState.idle()
    assert decide(idle, done(Node(1, True), "a", traversal="")).commands == ()


def test_completion_commands_in_order() -> None:
    decision = decide(start({"a": set()}).state, done(Node(1, True), "a"))
    kinds = [type(c) for c in decision.commands]
    assert kinds == [type(decision.commands[0]), MarkStackComplete, RecordEvent, CloseTraversal]
    assert decision.state.phase is Phase.COMPLETE


def test_replacing_a_version_created_by_this_traversal_cleans_it_up_afterwards() -> None:
    state = start({"a": set(), "b": {"a"}}).state
    decision = decide(state, ResourceNeedsReplacement(Node(1, True), "t1", "flavor"))
    (command,) = decision.commands
    assert isinstance(command, CreateReplacementVersion)
    assert (command.replaces, command.name, command.requires) == (1, "a", frozenset())
    decision = decide(decision.state, ReplacementCreated(Node(1, True), "t1", 7))
    assert dispatched(decision) == [(Node(7, True), NodeAction.CREATE)]
    decision = decide(decision.state, done(Node(7, True), "a"))
    # b gets the replacement's data; the abandoned version 1 is deleted (an extra cleanup).
    assert dispatched(decision) == [
        (Node(2, True), NodeAction.CREATE),
        (Node(1, False), NodeAction.DELETE),
    ]
    assert decision.commands[1].message.input_data["a"].version_id == 7  # type: ignore[union-attr]
    decision = decide(decision.state, done(Node(2, True), "b"))
    assert decision.state.phase is Phase.RUNNING
    decision = decide(decision.state, ResourceDone(Node(1, False), "t1", None))
    assert decision.state.phase is Phase.COMPLETE


def test_a_replacement_is_told_the_node_its_result_joins_as() -> None:
    first = start({"a": set(), "b": {"a"}})
    (message,) = [c.message for c in first.commands if isinstance(c, DispatchNode)]
    assert (message.join_node, message.joins_as) == (None, Node(1, True))
    decision = decide(first.state, ResourceNeedsReplacement(Node(1, True), "t1", "flavor"))
    decision = decide(decision.state, ReplacementCreated(Node(1, True), "t1", 7))
    (message,) = [c.message for c in decision.commands if isinstance(c, DispatchNode)]
    assert (message.node, message.joins_as) == (Node(7, True), Node(1, True))


def test_a_result_its_actor_recorded_is_not_recorded_again() -> None:
    state = start({"a": set(), "b": set()}).state
    plain = decide(state, done(Node(1, True), "a"))
    recorded = decide(state, dataclasses.replace(done(Node(1, True), "a"), recorded=True))
    (first,) = [c for c in plain.commands if isinstance(c, PersistNodeResult)]
    (second,) = [c for c in recorded.commands if isinstance(c, PersistNodeResult)]
    assert (first.recorded, second.recorded) == (False, True)
    assert dataclasses.replace(first, recorded=True) == second


def test_replies_from_the_replaced_node_are_ignored_once_it_is_replaced() -> None:
    state = start({"a": set()}).state
    state = decide(state, ResourceNeedsReplacement(Node(1, True), "t1")).state
    state = decide(state, ReplacementCreated(Node(1, True), "t1", 7)).state
    assert decide(state, done(Node(1, True), "a")).state is state


def test_only_a_failure_is_accepted_while_the_replacement_row_is_inserted() -> None:
    state = start({"a": set()}).state
    state = decide(state, ResourceNeedsReplacement(Node(1, True), "t1")).state
    for event in (done(Node(1, True), "a"), ResourceNeedsReplacement(Node(1, True), "t1")):
        assert decide(state, event).state is state


def test_a_failed_replacement_insert_fails_the_node() -> None:
    state = start({"a": set()}, disable_rollback=True).state
    state = decide(state, ResourceNeedsReplacement(Node(1, True), "t1")).state
    decision = decide(state, ResourceFailed(Node(1, True), "t1", Failure("LockConflict", "x")))
    assert decision.state.phase is Phase.FAILED
    assert isinstance(decision.commands[0], PersistStackState)
    assert decision.commands[-1] == CloseTraversal("t1")


def test_a_replacement_created_after_a_failure_only_drains() -> None:
    state = start({"a": set(), "b": set()}, disable_rollback=True).state
    state = decide(state, ResourceNeedsReplacement(Node(1, True), "t1")).state
    state = decide(state, ResourceFailed(Node(2, True), "t1", BOOM)).state
    assert state.phase is Phase.FAILED
    assert not state.closed
    decision = decide(state, ReplacementCreated(Node(1, True), "t1", 7))
    assert decision.commands == (CloseTraversal("t1"),)


@pytest.mark.parametrize("operation", [Action.CHECK, Action.DELETE])
def test_operations_that_cannot_replace_fail_instead(operation: Action) -> None:
    versions = [ResourceVersion(1, "a", LIVE)]
    graph = graph_for(operation, versions, {"a": set()}, {"a": 1})
    started = decide(TraversalState.idle(), StartTraversal("t1", operation, graph))
    state = started.state
    ((node, _),) = dispatched(started)
    decision = decide(state, ResourceNeedsReplacement(node, "t1", "why"))
    assert state.failures == ()
    (name, failure) = decision.state.failures[0]
    assert name == "a"
    assert failure.type_name == "Error"
    assert failure.path == ("resources", "a")
    assert f"which {operation.value} cannot do: why" in failure.message


def test_a_restart_that_finds_everything_done_completes() -> None:
    graph = graph_of({"a": set()})
    data = NodeData(1, "a", "a", {}, LIVE)
    event = ResumeTraversal(
        "t1", Action.CREATE, graph, TraversalOptions(), {Node(1, True): data}, {}
    )
    decision = decide(TraversalState.idle(), event)
    assert decision.state.phase is Phase.COMPLETE
    assert dispatched(decision) == []


def test_resume_of_a_replaced_slot_dispatches_the_replacement() -> None:
    graph = graph_of({"a": set()}, LIVE)
    event = ResumeTraversal("t1", Action.UPDATE, graph, TraversalOptions(), {}, {1: 5})
    decision = decide(TraversalState.idle(), event)
    assert dispatched(decision) == [(Node(5, True), NodeAction.CREATE)]


def test_bugs_become_failures_not_exceptions() -> None:
    broken: Any = ResumeTraversal("t2", Action.CREATE, graph_of({}), TraversalOptions(), None, {})  # type: ignore[arg-type]
    decision = decide(TraversalState.idle(), broken)
    (reject,) = decision.commands
    assert isinstance(reject, RejectRequest)
    assert reject.failure.type_name == "TypeError"
    running = start({"a": set()}).state
    decision = decide(running, broken)
    assert decision.state.phase is Phase.FAILED
    assert decision.state.reason.startswith("Engine error: TypeError")


def test_a_shell_fault_fails_the_running_traversal_without_rollback() -> None:
    running = start({"a": set(), "b": set()}, disable_rollback=False).state
    fault = ShellFault("t1", Failure("RuntimeError", "observer broke"))
    decision = decide(running, fault)
    assert decision.state.phase is Phase.FAILED
    assert decision.state.reason == "Engine error: RuntimeError: observer broke"
    assert not [c for c in decision.commands if isinstance(c, StartRollback)]
    cancelled = {c.message.node for c in decision.commands if isinstance(c, CancelNode)}
    assert cancelled == {Node(1, True), Node(2, True)}
    # Another traversal's fault, or one after the traversal failed, changes nothing.
    for state, event in ((running, ShellFault("t0", BOOM)), (decision.state, fault)):
        assert decide(state, event).commands == ()


def test_a_limit_below_one_still_makes_progress() -> None:
    decision = start({"a": set(), "b": set()}, concurrency_limit=0)
    assert len(dispatched(decision)) == 1


@pytest.mark.parametrize("partial", [False, True])
def test_a_check_that_cannot_check_everything_says_so_as_heat_does(partial: bool) -> None:
    suffix = ". 'CHECK' not fully supported (see resources)" if partial else ""
    graph = graph_of({"a": set(), "b": set()}, LIVE)
    options = TraversalOptions(partial_check=partial)
    state = decide(TraversalState.idle(), StartTraversal("t1", Action.CHECK, graph, options)).state
    state = decide(state, done(Node(1, True), "a")).state
    failed = decide(state, ResourceFailed(Node(2, True), "t1", BOOM))
    reasons = [c.reason for c in failed.commands if isinstance(c, MarkStackComplete | RecordEvent)]
    assert (
        reasons[-1]
        == "Resource CHECK failed: b: Resource CHECK failed: ResourceInError: boom" + suffix
    )
    completed = decide(state, done(Node(2, True), "b"))
    reasons = [c.reason for c in completed.commands if isinstance(c, MarkStackComplete)]
    assert reasons == ["Stack CHECK completed successfully" + suffix]


@pytest.mark.parametrize("rollback", [False, True])
def test_a_cancel_with_rollback_goes_straight_to_the_rollback(rollback: bool) -> None:
    state = start({"a": set()}, Action.UPDATE).state
    decision = decide(state, CancelRequested("t1", rollback))
    kinds = [type(c) for c in decision.commands]
    (cancel,) = [c for c in decision.commands if isinstance(c, CancelNode)]
    assert cancel.message.why == "user triggered cancel"
    if rollback:
        # Heat's convergence engine records no UPDATE_FAILED: the rollback takes over.
        assert PersistStackState not in kinds
        assert RecordEvent not in kinds
        (start_rollback,) = [c for c in decision.commands if isinstance(c, StartRollback)]
        assert start_rollback.reason == "Stack UPDATE cancelled"
    else:
        assert StartRollback not in kinds
        (event,) = [c for c in decision.commands if isinstance(c, RecordEvent)]
        assert (str(event.state), event.reason) == ("UPDATE_FAILED", "Stack UPDATE cancelled")


def test_the_members_of_a_layer_receive_one_input_with_its_ids_sorted() -> None:
    first = start({"b": set(), "a": set(), "x": {"a", "b"}, "y": {"a", "b"}})
    state = decide(first.state, done(Node(2, True), "a")).state
    last = decide(state, done(Node(1, True), "b"))
    x, y = (c.message for c in last.commands if isinstance(c, DispatchNode))
    assert x.input_data is y.input_data
    assert x.input_data.version_ids == (1, 2)
    assert sorted(x.input_data) == ["a", "b"]
