"""Dependency graphs of resources: cycle detection and a stable topological order."""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping

from thermik.errors import CircularDependency


def _successors(requires: Mapping[str, Iterable[str]], node: str, done: set[str]) -> list[str]:
    # Finished names are skipped at once (a set difference, not a visit per edge: layers of
    # resources requiring a whole previous layer have millions of edges). Reversed so that
    # popping from the end visits names in sorted order.
    needs = requires.get(node, ())
    pending = needs - done if isinstance(needs, (set, frozenset)) else set(needs) - done
    return sorted(pending, reverse=True)


def find_cycle(requires: Mapping[str, Iterable[str]]) -> list[str] | None:
    """A cycle in ``requires`` (name -> names it needs), as a list of names, or ``None``.

    Iterative depth-first search, so deep chains do not exhaust the Python stack.
    """
    on_path: set[str] = set()
    done: set[str] = set()
    for root in sorted(requires):
        if root in done:
            continue
        path = [root]
        stack = [(root, _successors(requires, root, done))]
        on_path.add(root)
        while stack:
            node, pending = stack[-1]
            if not pending:
                stack.pop()
                path.pop()
                on_path.discard(node)
                done.add(node)
                continue
            nxt = pending.pop()
            if nxt in on_path:
                return path[path.index(nxt) :]
            if nxt not in done:
                on_path.add(nxt)
                path.append(nxt)
                stack.append((nxt, _successors(requires, nxt, done)))
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
