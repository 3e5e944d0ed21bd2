"""Dependency graphs of resources: cycle detection and a stable topological order."""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping

from thermik.errors import CircularDependency


def _successors(requires: Mapping[str, Iterable[str]], node: str) -> list[str]:
    # Reversed so that popping from the end visits names in sorted order.
    return sorted(requires.get(node, ()), reverse=True)


def find_cycle(requires: Mapping[str, Iterable[str]]) -> list[str] | None:
    """A cycle in ``requires`` (name -> names it needs), as a list of names, or ``None``.

    Iterative depth-first search, so deep chains do not exhaust the Python stack.
    """
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for root in sorted(requires):
        if state.get(root):
            continue
        path = [root]
        stack = [(root, _successors(requires, root))]
        state[root] = 1
        while stack:
            node, pending = stack[-1]
            if not pending:
                stack.pop()
                path.pop()
                state[node] = 2
                continue
            nxt = pending.pop()
            mark = state.get(nxt)
            if mark == 1:
                return path[path.index(nxt) :]
            if mark is None:
                state[nxt] = 1
                path.append(nxt)
                stack.append((nxt, _successors(requires, nxt)))
    return None


def check_acyclic(requires: Mapping[str, Iterable[str]]) -> None:
    """Raise :class:`CircularDependency` naming the cycle if ``requires`` has one."""
    cycle = find_cycle(requires)
    if cycle is not None:
        raise CircularDependency(cycle)


def topological_order(requires: Mapping[str, Iterable[str]]) -> list[str]:
    """Names ordered so each comes after everything it requires (ties by name)."""
    check_acyclic(requires)
    waiting = {name: len(set(deps)) for name, deps in requires.items()}
    needed_by: dict[str, list[str]] = {}
    for name, deps in requires.items():
        for dep in set(deps):
            needed_by.setdefault(dep, []).append(name)
            waiting.setdefault(dep, 0)
    ready = [n for n, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        node = heapq.heappop(ready)
        order.append(node)
        for user in needed_by.get(node, ()):
            waiting[user] -= 1
            if waiting[user] == 0:
                heapq.heappush(ready, user)
    return order
