"""Creating and deleting stacks of various shapes through the pure core."""

from __future__ import annotations

import collections

import pytest

from tests.scenarios.simulator import World, chain, layered, wide
from thermik.engine.messages import DispatchNode, TimerKind
from thermik.engine.operations import NodeAction
from thermik.engine.states import Action, State, Status
from thermik.engine.traversal import Phase

CREATE_COMPLETE = State(Action.CREATE, Status.COMPLETE)
DIAMOND = {"a": set(), "b": {"a"}, "c": {"a"}, "d": {"b", "c"}}


def created_before(world: World, deps: dict[str, frozenset[str]] | dict[str, set[str]]) -> None:
    for name, required in deps.items():
        for dep in required:
            assert world.position(dep, NodeAction.CREATE) < world.position(name, NodeAction.CREATE)


@pytest.mark.parametrize(
    "deps",
    [wide(30), chain(30), DIAMOND, layered(4, 5)],
    ids=["wide", "chain", "diamond", "layered"],
)
def test_create_converges_every_resource_in_dependency_order(deps: dict[str, set[str]]) -> None:
    world = World()
    world.start(Action.CREATE, deps)
    world.run()
    assert world.stack == CREATE_COMPLETE
    assert world.stack_reason == "Stack CREATE completed successfully"
    assert sorted(world.live()) == sorted(deps)
    assert collections.Counter(name for name, _ in world.order()) == dict.fromkeys(deps, 1)
    assert len(world.dispatched) == len(deps)
    created_before(world, deps)
    assert world.phase is Phase.COMPLETE
    assert world.closed == ["t1"]


def test_random_reply_order_still_respects_dependencies() -> None:
    deps = layered(5, 6)
    world = World(seed=7)
    world.start(Action.CREATE, deps)
    world.run()
    assert world.stack == CREATE_COMPLETE
    created_before(world, deps)


def test_all_ready_leaves_are_dispatched_by_the_start_decision() -> None:
    world = World()
    world.hold(*wide(40))
    world.start(Action.CREATE, wide(40))
    assert len(world.pending) == 40


def test_the_concurrency_limit_is_honoured() -> None:
    world = World()
    world.hold(*wide(50))
    world.start(Action.CREATE, wide(50), concurrency_limit=4)
    assert len(world.pending) == 4
    world.release(*wide(50))
    world.run()
    assert world.max_running == 4
    assert world.stack == CREATE_COMPLETE
    assert len(world.dispatched) == 50


def test_concurrency_limit_across_layers() -> None:
    world = World(seed=3)
    world.start(Action.CREATE, layered(3, 10), concurrency_limit=3)
    world.run()
    assert world.max_running == 3
    assert len(world.live()) == 30


def test_events_tell_the_story() -> None:
    world = World()
    world.start(Action.CREATE, DIAMOND)
    world.run()
    assert [(str(e.state), e.reason) for e in world.events] == [
        ("CREATE_IN_PROGRESS", "Stack CREATE started"),
        ("CREATE_COMPLETE", "Stack CREATE completed successfully"),
    ]


def test_a_timeout_timer_is_armed_when_asked() -> None:
    world = World()
    world.start(Action.CREATE, DIAMOND, timeout_seconds=600)
    assert [(t.kind, t.seconds) for t in world.timers] == [(TimerKind.DEADLINE, 600)]


def test_empty_template_completes_at_once() -> None:
    world = World()
    world.start(Action.CREATE, {})
    assert world.stack == CREATE_COMPLETE
    assert world.dispatched == []


def test_delete_runs_in_reverse_dependency_order() -> None:
    world = World()
    world.start(Action.CREATE, DIAMOND)
    world.run()
    traversal = world.start(Action.DELETE)
    world.run()
    assert world.stack == State(Action.DELETE, Status.COMPLETE)
    order = world.order(traversal)
    assert {name for name, _ in order} == set(DIAMOND)
    assert all(action is NodeAction.DELETE for _, action in order)
    for name, required in DIAMOND.items():
        for dep in required:
            assert order.index((name, NodeAction.DELETE)) < order.index((dep, NodeAction.DELETE))
    assert world.live() == {}
    assert world.rows == {}


def test_delete_of_a_chain_starts_from_its_end() -> None:
    world = World()
    world.start(Action.CREATE, chain(5))
    world.run()
    traversal = world.start(Action.DELETE)
    first = [c for c in world.dispatched if c.traversal_id == traversal]
    assert [c.name for c in first] == ["r4"]
    world.run()
    assert [name for name, _ in world.order(traversal)] == ["r4", "r3", "r2", "r1", "r0"]


def test_delete_of_a_layered_stack() -> None:
    world = World(seed=11)
    world.start(Action.CREATE, layered(3, 4))
    world.run()
    traversal = world.start(Action.DELETE, concurrency_limit=2)
    world.run()
    order = [name for name, _ in world.order(traversal)]
    layers = [int(name[1]) for name in order]
    assert layers == sorted(layers, reverse=True)
    assert world.peaks[traversal] == 2


def test_abandon_forgets_rows_but_keeps_physical_resources() -> None:
    world = World()
    world.start(Action.CREATE, DIAMOND)
    world.run()
    traversal = world.start(Action.ABANDON)
    world.run()
    assert world.stack == State(Action.DELETE, Status.COMPLETE)
    assert {action for _, action in world.order(traversal)} == {NodeAction.RETAIN}
    assert sorted(world.live()) == sorted(DIAMOND)
    assert world.rows == {}


def test_adopt_adopts_instead_of_creating() -> None:
    world = World()
    traversal = world.start(Action.ADOPT, DIAMOND)
    world.run()
    assert world.stack == State(Action.ADOPT, Status.COMPLETE)
    assert {action for _, action in world.order(traversal)} == {NodeAction.ADOPT}


def test_every_dispatch_is_a_check_resource_for_its_own_traversal() -> None:
    world = World()
    world.start(Action.CREATE, DIAMOND)
    world.run()
    assert all(isinstance(DispatchNode(c), DispatchNode) for c in world.dispatched)
    assert {c.traversal_id for c in world.dispatched} == {"t1"}
    inputs = {c.name: sorted(c.input_data) for c in world.dispatched}
    assert inputs == {"a": [], "b": ["a"], "c": ["a"], "d": ["b", "c"]}
