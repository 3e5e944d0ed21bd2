"""Properties of the core over random dependency graphs, reply orders, failures and updates."""

from __future__ import annotations

import collections

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.scenarios.simulator import World
from thermik.engine.operations import NodeAction
from thermik.engine.states import Action, Status
from thermik.engine.traversal import Phase

Deps = dict[str, frozenset[str]]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def dags(draw: st.DrawFn, names: list[str] | None = None) -> Deps:
    """A random DAG: each resource may require any resource declared before it."""
    if names is None:
        count = draw(st.integers(min_value=0, max_value=14))
        names = [f"r{i}" for i in range(count)]
    deps: Deps = {}
    for i, name in enumerate(names):
        earlier = names[:i]
        required = draw(st.sets(st.sampled_from(earlier), max_size=4)) if earlier else set()
        deps[name] = frozenset(required)
    return deps


def assert_dispatched_after_predecessors(world: World, traversal: str, deps: Deps) -> None:
    """Update nodes ran after their template dependencies; the simulator checks every node."""
    done: set[str] = set()
    for kind, tid, name in world.log:
        if tid == traversal and name in deps:
            if kind == "done":
                done.add(name)
            elif name not in done:
                assert deps[name] <= done, f"{name} dispatched before {deps[name] - done}"


@SETTINGS
@given(
    deps=dags(),
    limit=st.integers(min_value=1, max_value=4),
    seed=st.integers(min_value=0, max_value=10_000),
)
def test_create_dispatches_each_node_once_after_its_predecessors(
    deps: Deps, limit: int, seed: int
) -> None:
    world = World(seed=seed)
    traversal = world.start(Action.CREATE, deps, concurrency_limit=limit)
    world.run()
    assert world.phase is Phase.COMPLETE
    assert str(world.stack) == "CREATE_COMPLETE"
    assert_dispatched_after_predecessors(world, traversal, deps)
    assert collections.Counter(m.name for m in world.dispatched) == dict.fromkeys(deps, 1)
    assert world.peaks[traversal] <= limit
    assert sorted(world.live()) == sorted(deps)


@SETTINGS
@given(
    deps=dags(),
    data=st.data(),
    disable_rollback=st.booleans(),
    seed=st.integers(min_value=0, max_value=10_000),
)
def test_traversals_always_end_complete_or_failed(
    deps: Deps, data: st.DataObject, disable_rollback: bool, seed: int
) -> None:
    world = World(seed=seed)
    failing = data.draw(st.sets(st.sampled_from(sorted(deps)))) if deps else set()
    for name in failing:
        world.fail_on[(name, NodeAction.CREATE)] = 1
    traversal = world.start(Action.CREATE, deps, disable_rollback=disable_rollback)
    world.run()
    assert world.stack.status is not Status.IN_PROGRESS
    assert world.phase in (Phase.COMPLETE, Phase.FAILED)
    assert world.state.running_nodes == ()
    assert world.pending == []
    assert_dispatched_after_predecessors(world, traversal, deps)
    if not failing:
        assert str(world.stack) == "CREATE_COMPLETE"
    elif disable_rollback:
        assert str(world.stack) == "CREATE_FAILED"
    else:
        assert str(world.stack) in ("ROLLBACK_COMPLETE", "ROLLBACK_FAILED")
        if str(world.stack) == "ROLLBACK_COMPLETE":
            assert world.live() == {}


@st.composite
def updates(draw: st.DrawFn) -> tuple[Deps, Deps, set[str]]:
    pool = [f"r{i}" for i in range(12)]
    first = draw(st.lists(st.sampled_from(pool), unique=True, max_size=10))
    second = draw(st.lists(st.sampled_from(pool), unique=True, max_size=10))
    replaced = (
        draw(st.sets(st.sampled_from(sorted(set(first) & set(second)))))
        if (set(first) & set(second))
        else set()
    )
    return draw(dags(first)), draw(dags(second)), replaced


@SETTINGS
@given(
    case=updates(),
    limit=st.integers(min_value=1, max_value=4),
    seed=st.integers(min_value=0, max_value=10_000),
)
def test_update_converges_to_exactly_the_new_template(
    case: tuple[Deps, Deps, set[str]], limit: int, seed: int
) -> None:
    first, second, replaced = case
    world = World(seed=seed)
    world.start(Action.CREATE, first)
    world.run()
    before = world.live()
    world.replace_on.update(replaced)
    traversal = world.start(Action.UPDATE, second, concurrency_limit=limit)
    world.run()
    assert str(world.stack) == "UPDATE_COMPLETE"
    live = world.live()
    assert sorted(live) == sorted(second)
    assert all(len(versions) == 1 for versions in live.values())
    order = world.order(traversal)
    for name in replaced:
        assert live[name] != before[name]
        assert order.index((name, NodeAction.CREATE)) < order.index((name, NodeAction.DELETE))
    for name in set(first) - set(second):
        # A removed resource is deleted after every dependent that stays was converged.
        deleted_at = order.index((name, NodeAction.DELETE))
        for other in second:
            if name in first.get(other, frozenset()):
                converged = [
                    i
                    for i, (n, action) in enumerate(order)
                    if n == other and action in (NodeAction.UPDATE, NodeAction.CREATE)
                ]
                assert max(converged) < deleted_at
    assert world.peaks[traversal] <= limit
    assert_dispatched_after_predecessors(world, traversal, second)
