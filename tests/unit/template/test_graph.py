"""Cycle detection and topological order on large and deep graphs."""

from __future__ import annotations

import pytest

from thermik.errors import CircularDependency
from thermik.template.graph import check_acyclic, find_cycle, topological_order


def test_deep_chain_does_not_recurse() -> None:
    chain = {f"r{i}": {f"r{i - 1}"} if i else set() for i in range(20000)}
    assert find_cycle(chain) is None
    order = topological_order(chain)
    assert order[0] == "r0"
    assert order[-1] == "r19999"


def test_cycle_in_a_deep_chain() -> None:
    chain: dict[str, set[str]] = {f"r{i}": {f"r{i + 1}"} for i in range(5000)}
    chain["r5000"] = {"r4990"}
    cycle = find_cycle(chain)
    assert cycle is not None
    assert len(cycle) == 11
    assert "r5000" in cycle


def test_wide_graph_order_is_by_name() -> None:
    wide = {"hub": set(), **{f"leaf{i:04d}": {"hub"} for i in range(3000)}}
    order = topological_order(wide)
    assert order[0] == "hub"
    assert order[1:] == sorted(order[1:])


def test_dependencies_outside_the_graph_are_nodes_too() -> None:
    assert topological_order({"a": {"b"}}) == ["b", "a"]


def test_check_acyclic() -> None:
    check_acyclic({"a": set()})
    with pytest.raises(CircularDependency, match="a -> b -> a"):
        check_acyclic({"a": {"b"}, "b": {"a"}})
