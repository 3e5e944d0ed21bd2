"""The convergence graph: nodes, edges, groups, order and errors."""

from __future__ import annotations

import pytest

from thermik import errors
from thermik.engine.graph import ConvergenceGraph, Node, build_graph, graph_for
from thermik.engine.states import Action, State
from thermik.engine.versions import ResourceVersion

INIT = State.parse("INIT_COMPLETE")
LIVE = State.parse("CREATE_COMPLETE")


def v(vid: int, name: str, state: State = LIVE, **fields: object) -> ResourceVersion:
    return ResourceVersion(vid, name, state, **fields)  # type: ignore[arg-type]


def U(vid: int) -> Node:
    return Node(vid, True)


def C(vid: int) -> Node:
    return Node(vid, False)


def edges(graph: ConvergenceGraph) -> set[tuple[Node, Node]]:
    return set(graph.edges())


def test_create_graph_follows_the_template() -> None:
    versions = [v(1, "a", INIT), v(2, "b", INIT), v(3, "c", INIT)]
    graph = build_graph(
        versions, {"a": set(), "b": {"a"}, "c": {"a", "b"}}, {"a": 1, "b": 2, "c": 3}
    )
    # New versions have nothing to clean up.
    assert list(graph) == [U(1), U(2), U(3)]
    assert edges(graph) == {(U(2), U(1)), (U(3), U(1)), (U(3), U(2))}
    assert graph.leaves() == (U(1),)
    assert graph.roots() == (U(3),)
    assert graph.predecessors(U(3)) == (U(1), U(2))
    assert graph.successors(U(1)) == (U(2), U(3))
    assert graph.name_of(U(2)) == "b"
    assert graph.edge_count() == 3
    assert graph.topological_order() == (U(1), U(2), U(3))


def test_update_graph_adds_cleanup_after_update_and_dependents() -> None:
    # a <- b, both live; the new template drops b and adds c requiring a.
    versions = [v(1, "a"), v(2, "b", requires=frozenset({1})), v(3, "c", INIT)]
    graph = build_graph(versions, {"a": set(), "c": {"a"}}, {"a": 1, "c": 3})
    assert list(graph) == [C(1), C(2), U(1), U(3)]
    assert edges(graph) == {
        (U(3), U(1)),  # update edges follow the new template
        (C(1), U(1)),  # cleanup after own update
        (C(1), C(2)),  # b required a: b is cleaned up first
    }
    assert set(graph.leaves()) == {C(2), U(1)}
    assert set(graph.roots()) == {C(1), U(3)}
    assert not graph.has_update(2)
    assert graph.has_update(1)


def test_an_old_version_is_cleaned_after_its_replacement() -> None:
    versions = [
        v(1, "a", replaced_by=2),
        v(2, "a", INIT, replaces=1),
        v(3, "b", requires=frozenset({1})),
    ]
    graph = build_graph(versions, {"a": set(), "b": {"a"}}, {"a": 2, "b": 3})
    assert (C(1), C(3)) in edges(graph)
    assert (U(3), U(2)) in edges(graph)
    # The replacement is a chosen INIT version: no cleanup node of its own.
    assert C(2) not in graph
    # With the replacement live (not INIT), its cleanup precedes the old version's.
    versions[1] = v(2, "a", replaces=1)
    graph = build_graph(versions, {"a": set(), "b": {"a"}}, {"a": 2, "b": 3})
    assert (C(1), C(2)) in edges(graph)


def test_delete_graph_is_cleanup_only_in_reverse_order() -> None:
    versions = [
        v(1, "a"),
        v(2, "b", requires=frozenset({1})),
        v(3, "c", requires=frozenset({1, 2})),
    ]
    graph = graph_for(Action.DELETE, versions, {}, {})
    assert list(graph) == [C(1), C(2), C(3)]
    assert edges(graph) == {(C(1), C(2)), (C(1), C(3)), (C(2), C(3))}
    assert graph.leaves() == (C(3),)
    assert graph.roots() == (C(1),)


def test_deleted_versions_are_left_out() -> None:
    graph = graph_for(Action.DELETE, [v(1, "a", State.parse("DELETE_COMPLETE"))], {}, {})
    assert len(graph) == 0


def test_graph_shapes_per_operation() -> None:
    versions = [v(1, "a"), v(2, "b", requires=frozenset({1})), v(3, "old")]
    deps = {"a": set(), "b": {"a"}}
    chosen = {"a": 1, "b": 2}
    check = graph_for(Action.CHECK, versions, deps, chosen)
    assert list(check) == [U(1), U(2)]
    suspend = graph_for(Action.SUSPEND, versions, deps, chosen)
    assert list(suspend) == [C(1), C(2)]
    assert edges(suspend) == {(C(1), C(2))}
    update = graph_for(Action.UPDATE, versions, deps, chosen)
    assert list(update) == [C(1), C(2), C(3), U(1), U(2)]
    abandon = graph_for(Action.ABANDON, versions, deps, chosen)
    assert list(abandon) == [C(1), C(2), C(3)]


def test_identical_dependency_sets_share_one_group() -> None:
    names = [f"{layer}{i}" for layer in "xyz" for i in range(4)]
    deps: dict[str, frozenset[str]] = {}
    for name in names:
        previous = {"y": "x", "z": "y"}.get(name[0])
        deps[name] = frozenset(n for n in names if previous and n[0] == previous)
    versions = [v(i + 1, name, INIT) for i, name in enumerate(names)]
    graph = build_graph(versions, deps, {n: i + 1 for i, n in enumerate(names)})
    assert len(graph.groups) == 2
    assert graph.edge_count() == 2 * 4 * 4


def test_dependents_of_the_same_versions_share_cleanup_groups() -> None:
    layer1 = [v(i, f"a{i}") for i in range(1, 5)]
    ids = frozenset(x.id for x in layer1)
    layer2 = [v(10 + i, f"b{i}", requires=ids) for i in range(4)]
    graph = graph_for(Action.DELETE, layer1 + layer2, {}, {})
    assert len(graph.groups) == 1
    assert graph.edge_count() == 16


def test_cycles_are_reported_by_name() -> None:
    versions = [v(1, "a", INIT), v(2, "b", INIT), v(3, "c", INIT)]
    with pytest.raises(errors.CircularDependency) as caught:
        build_graph(versions, {"a": {"c"}, "b": {"a"}, "c": {"b"}}, {"a": 1, "b": 2, "c": 3})
    assert set(caught.value.cycle) == {"a", "b", "c"}
    assert str(caught.value).startswith("Circular Dependency Found: ")


def test_unknown_dependency_and_missing_choice_are_errors() -> None:
    versions = [v(1, "a", INIT)]
    with pytest.raises(errors.ResourceNotFound, match="'a' requires unknown resource 'zz'"):
        build_graph(versions, {"a": {"zz"}}, {"a": 1})
    with pytest.raises(errors.ResourceNotFound, match="no version chosen for resource 'b'"):
        build_graph(versions, {"a": set(), "b": set()}, {"a": 1})


def test_order_is_deterministic() -> None:
    versions = [v(3, "c"), v(1, "a"), v(2, "b")]
    first = build_graph(versions, {"c": set(), "b": set(), "a": set()}, {"a": 1, "b": 2, "c": 3})
    second = build_graph(
        list(reversed(versions)), {"a": set(), "c": set(), "b": set()}, {"a": 1, "b": 2, "c": 3}
    )
    assert list(first) == list(second) == [C(1), C(2), C(3), U(1), U(2), U(3)]
    assert first.topological_order() == second.topological_order()


def test_topological_order_puts_every_node_after_its_predecessors() -> None:
    versions = [v(i, f"r{i}", requires=frozenset(range(1, i))) for i in range(1, 7)]
    deps = {f"r{i}": {f"r{j}" for j in range(1, i)} for i in range(1, 7)}
    graph = build_graph(versions, deps, {f"r{i}": i for i in range(1, 7)})
    position = {node: i for i, node in enumerate(graph.topological_order())}
    for node, required in graph.edges():
        assert position[required] < position[node]
    assert len(position) == len(graph) == 12
