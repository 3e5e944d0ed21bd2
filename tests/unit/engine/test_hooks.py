"""decide() at breakpoint hooks: which hook a node stops at, and a resumed traversal's hooks."""

from __future__ import annotations

import pytest
from immutables import Map

from thermik.engine.decide import decide
from thermik.engine.graph import Node, build_graph
from thermik.engine.messages import (
    DispatchNode,
    HookCleared,
    NodeData,
    RecordEvent,
    ResourceDone,
    ResumeTraversal,
    TraversalOptions,
)
from thermik.engine.operations import NodeAction, hook_for, paused_reason
from thermik.engine.states import Action, State
from thermik.engine.traversal import TraversalState
from thermik.engine.versions import ResourceVersion

INIT = State.parse("INIT_COMPLETE")
OPTIONS = TraversalOptions(hooks=Map({"a": frozenset({"pre-create"})}))


@pytest.mark.parametrize(
    ("operation", "action", "moment", "hook"),
    [
        (Action.CREATE, NodeAction.CREATE, "pre", "pre-create"),
        (Action.CREATE, NodeAction.CREATE, "post", "post-create"),
        (Action.UPDATE, NodeAction.CREATE, "pre", None),
        (Action.UPDATE, NodeAction.UPDATE, "pre", "pre-update"),
        (Action.ROLLBACK, NodeAction.UPDATE, "post", "post-update"),
        (Action.UPDATE, NodeAction.DELETE, "pre", None),
        (Action.DELETE, NodeAction.DELETE, "pre", "pre-delete"),
        (Action.DELETE, NodeAction.DELETE, "post", "post-delete"),
        (Action.ABANDON, NodeAction.RETAIN, "pre", None),
        (Action.CHECK, NodeAction.CHECK, "pre", None),
    ],
)
def test_the_hook_a_node_stops_at_is_heats(
    operation: Action, action: NodeAction, moment: str, hook: str | None
) -> None:
    assert hook_for(operation, action, moment) == hook


def test_paused_reasons_are_heats() -> None:
    assert paused_reason("pre-create") == "CREATE paused until Hook pre-create is cleared"
    assert paused_reason("post-delete") == "DELETE paused until Hook post-delete is cleared"


def resume(**hooks: frozenset[tuple[str, str]]) -> list[object]:
    versions = [ResourceVersion(1, "a", INIT)]
    graph = build_graph(versions, {"a": set()}, {"a": 1})
    event = ResumeTraversal("t1", Action.CREATE, graph, OPTIONS, {}, {}, **hooks)
    return list(decide(TraversalState.idle(), event).commands)


def test_a_resumed_traversal_waits_again_at_a_hook_without_recording_it_twice() -> None:
    first = resume()
    assert [c.reason for c in first if isinstance(c, RecordEvent) and c.resource_name] == [
        "CREATE paused until Hook pre-create is cleared"
    ]
    again = resume(hooks_waiting=frozenset({("a", "pre-create")}))
    assert not [c for c in again if isinstance(c, RecordEvent) and c.resource_name]
    assert not [c for c in again if isinstance(c, DispatchNode)]


def test_a_resumed_traversal_does_not_stop_at_a_hook_cleared_before() -> None:
    commands = resume(hooks_cleared=frozenset({("a", "pre-create")}))
    assert [c.message.node for c in commands if isinstance(c, DispatchNode)] == [Node(1, True)]


def test_a_clear_for_another_traversal_is_rejected() -> None:
    versions = [ResourceVersion(1, "a", INIT)]
    graph = build_graph(versions, {"a": set()}, {"a": 1})
    state = decide(
        TraversalState.idle(), ResumeTraversal("t1", Action.CREATE, graph, OPTIONS, {}, {})
    ).state
    decision = decide(state, HookCleared("t0", "a", "pre-create"))
    assert decision.state is state
    assert len(decision.commands) == 1


@pytest.mark.parametrize("acted", [True, False])
def test_post_update_stops_only_after_an_update_that_changed_something(acted: bool) -> None:
    live = State.parse("CREATE_COMPLETE")
    versions = [ResourceVersion(1, "a", live)]
    graph = build_graph(versions, {"a": set()}, {"a": 1})
    options = TraversalOptions(hooks=Map({"a": frozenset({"post-update"})}))
    state = decide(
        TraversalState.idle(), ResumeTraversal("t1", Action.UPDATE, graph, options, {}, {})
    ).state
    data = NodeData(1, "a", "a", {}, live)
    decision = decide(state, ResourceDone(Node(1, True), "t1", data, acted=acted))
    assert bool(decision.state.paused) is acted
