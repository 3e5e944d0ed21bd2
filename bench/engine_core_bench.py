"""Time the pure convergence core creating large stacks; prints milliseconds per resource.

Shapes: a wide stack (N independent resources), a deep chain (each requires the previous one)
and layers (each resource requires every resource of the previous layer: 2.25 million
dependencies for 10 layers of 500). For each: the time to build the graph, and the time of every
``decide`` call of the traversal (start, then one ``ResourceDone`` per resource, answered in
dispatch order), with no actors, threads or database; plus an in-place update of the layered
stack (twice the nodes: cleanup nodes are resolved inside the core). Times are CPU time per
resource (the wall time is shown too; on a shared machine it is mostly waiting).

Usage: ``.venv/bin/python bench/engine_core_bench.py [--size 5000] [--layers 10] [--limit 64]``
"""

from __future__ import annotations

import argparse
import collections
import gc
import time
import tracemalloc
from collections.abc import Mapping

from thermik.engine.decide import decide
from thermik.engine.graph import ConvergenceGraph, build_graph
from thermik.engine.messages import (
    DispatchNode,
    NodeData,
    ResourceDone,
    StartTraversal,
    TraversalOptions,
)
from thermik.engine.states import INIT_COMPLETE, Action, State, Status
from thermik.engine.traversal import Phase, TraversalState
from thermik.engine.versions import ResourceVersion

CREATED = State(Action.CREATE, Status.COMPLETE)


def wide(n: int) -> dict[str, frozenset[str]]:
    return {f"r{i}": frozenset() for i in range(n)}


def chain(n: int) -> dict[str, frozenset[str]]:
    return {f"r{i}": frozenset({f"r{i - 1}"}) if i else frozenset() for i in range(n)}


def layered(layers: int, width: int) -> dict[str, frozenset[str]]:
    deps: dict[str, frozenset[str]] = {}
    previous: frozenset[str] = frozenset()
    for layer in range(layers):
        names = [f"l{layer}_{i}" for i in range(width)]
        for name in names:
            # Each resource's dependency set is its own object, as a template parser makes it.
            deps[name] = frozenset(previous)
        previous = frozenset(names)
    return deps


Inputs = tuple[list[ResourceVersion], Mapping[str, frozenset[str]], dict[str, int]]


def inputs(deps: Mapping[str, frozenset[str]], *, existing: bool) -> Inputs:
    """New versions to create, or with ``existing`` the versions of the stack already created.

    Made outside the timings: they are the store's and the template layer's output.
    """
    ids = {name: i + 1 for i, name in enumerate(deps)}
    versions = [
        ResourceVersion(
            ids[name],
            name,
            CREATED if existing else INIT_COMPLETE,
            requires=frozenset(ids[d] for d in required) if existing else frozenset(),
        )
        for name, required in deps.items()
    ]
    return versions, deps, ids


def build(given: Inputs) -> ConvergenceGraph:
    return build_graph(*given)


def traverse(graph: ConvergenceGraph, limit: int) -> tuple[int, int]:
    """Run a create (or update) traversal to the end; returns (decide calls, dispatches)."""
    operation = Action.UPDATE if any(not node.is_update for node in graph) else Action.CREATE
    decision = decide(
        TraversalState.idle(),
        StartTraversal("t", operation, graph, TraversalOptions(concurrency_limit=limit)),
    )
    pending: collections.deque[DispatchNode] = collections.deque()
    calls = dispatches = 0
    while True:
        calls += 1
        for command in decision.commands:
            if isinstance(command, DispatchNode):
                pending.append(command)
                dispatches += 1
        if not pending:
            break
        message = pending.popleft().message
        data = NodeData(message.node.version_id, message.name, message.name, {}, CREATED)
        decision = decide(decision.state, ResourceDone(message.node, "t", data))
    assert decision.state.phase is Phase.COMPLETE, decision.state.phase
    return calls, dispatches


def clocks() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def since(mark: tuple[float, float]) -> tuple[float, float]:
    wall, cpu = clocks()
    return (wall - mark[0]) * 1000, (cpu - mark[1]) * 1000


def peak_mib(given: Inputs, limit: int) -> float:
    """Peak memory of building the graph and running the traversal (inputs excluded)."""
    gc.collect()
    tracemalloc.start()
    traverse(build(given), limit)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def measure(
    label: str, deps: Mapping[str, frozenset[str]], limit: int, *, existing: bool = False
) -> None:
    n = len(deps)
    edges = sum(len(v) for v in deps.values())
    given = inputs(deps, existing=existing)
    gc.collect()
    mark = clocks()
    graph = build(given)
    build_wall, build_cpu = since(mark)
    mark = clocks()
    calls, dispatches = traverse(graph, limit)
    run_wall, run_cpu = since(mark)
    print(
        f"{label:<16} {n:>5} resources {edges:>7} deps {len(graph.groups):>5} groups | "
        f"graph {build_cpu / n:.4f} ms/res cpu ({build_wall:6.1f} ms wall) | "
        f"decide x{calls} {run_cpu / n:.4f} ms/res cpu ({run_wall:6.1f} ms wall) | "
        f"{dispatches} dispatched | peak {peak_mib(given, limit):.1f} MiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=5000)
    parser.add_argument("--layers", type=int, default=10)
    parser.add_argument("--width", type=int, default=500)
    parser.add_argument("--limit", type=int, default=64, help="concurrency limit")
    args = parser.parse_args()
    print(f"concurrency limit {args.limit}; target for the whole engine: 0.5 ms/resource")
    measure("wide", wide(args.size), args.limit)
    measure("chain", chain(args.size), args.limit)
    layers = layered(args.layers, args.width)
    measure(f"{args.layers} layers x {args.width}", layers, args.limit)
    # Updating the same stack in place: every version also gets a (no-op) cleanup node that
    # waits for the cleanup of all its dependents.
    measure("  update in place", layers, args.limit, existing=True)


if __name__ == "__main__":
    main()
