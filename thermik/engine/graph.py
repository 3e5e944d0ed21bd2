"""The convergence graph: what runs after what in one traversal.

Nodes are ``Node(version_id, is_update)``: the *update* node converges a version to the new
template (create, update, check, ...); the *cleanup* node deletes (or suspends) a version that is
no longer wanted, and is a no-op for a version that is. Edges, as in Heat
(``reference/heat-study.md`` §2.2):

* update edges follow the new template's dependencies: the update node of ``web`` runs after the
  update nodes of everything ``web`` requires;
* a cleanup node runs after its own version's update node, and after the cleanup nodes of every
  version that required it (dependents are cleaned up before their dependencies);
* an old version is cleaned up after the cleanup of the version that replaces it, and its own
  update slot is filled by the replacement, so it is deleted only once the replacement exists and
  the dependents were moved to it (create before delete);
* a delete (or abandon) traversal converges to an empty template: a cleanup-only graph, run in
  reverse dependency order.

Joins are stored as *groups*, not as individual edges: a group is a set of nodes that some node
waits for, and identical sets are stored once. A node waits for a few groups (its template
dependencies, its own update, the cleanup of its dependents, the cleanup of its replacement), so
10 layers of 500 resources each depending on the whole previous layer are 10 groups of 500 rather
than 2.25 million edges, and the traversal's join counters are per group.

Everything is indexed by a dense node index (the position in :attr:`ConvergenceGraph.nodes`, which
is deterministic: cleanup nodes first, then update nodes, each by version id).
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Set
from typing import NamedTuple

from thermik import errors
from thermik.engine.states import Action
from thermik.engine.versions import ResourceVersion, VersionId


class Node(NamedTuple):
    """One node of the convergence graph; serialises as Heat's ``[id, is_update]``."""

    version_id: VersionId
    is_update: bool


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class ConvergenceGraph:
    """An immutable convergence graph over dense node indices; build it with :func:`build_graph`.

    Attributes:
        nodes: every node, in the deterministic order that defines the indices.
        names: the logical resource name of each node.
        index: node -> index.
        versions: the versions the graph was built from, by id.
        groups: each join group's member indices.
        waits: for each node, the groups it waits for (it is ready when all are complete).
        feeds: for each node, the groups it is a member of.
        waiters: for each group, the nodes waiting for it.
        leaf_indices: nodes that wait for nothing, in index order.
        root_indices: nodes nothing waits for, in index order.
        order: a topological order of all indices.
    """

    nodes: tuple[Node, ...]
    names: tuple[str, ...]
    index: Mapping[Node, int]
    versions: Mapping[VersionId, ResourceVersion]
    groups: tuple[tuple[int, ...], ...]
    waits: tuple[tuple[int, ...], ...]
    feeds: tuple[tuple[int, ...], ...]
    waiters: tuple[tuple[int, ...], ...]
    leaf_indices: tuple[int, ...]
    root_indices: tuple[int, ...]
    order: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes)

    def __contains__(self, node: object) -> bool:
        return node in self.index

    def leaves(self) -> tuple[Node, ...]:
        """The start points: nodes that wait for nothing."""
        return tuple(self.nodes[i] for i in self.leaf_indices)

    def roots(self) -> tuple[Node, ...]:
        """The end points: the traversal is complete when all of them are."""
        return tuple(self.nodes[i] for i in self.root_indices)

    def name_of(self, node: Node) -> str:
        """The logical resource name of ``node``."""
        return self.names[self.index[node]]

    def has_update(self, version_id: VersionId) -> bool:
        """Whether ``version_id`` is converged (has an update node) in this graph."""
        return Node(version_id, True) in self.index

    def predecessor_indices(self, i: int) -> tuple[int, ...]:
        """Indices of the nodes that must finish before node ``i`` runs."""
        return tuple(sorted({m for g in self.waits[i] for m in self.groups[g]}))

    def successor_indices(self, i: int) -> tuple[int, ...]:
        """Indices of the nodes that wait (among others) for node ``i``."""
        return tuple(sorted({w for g in self.feeds[i] for w in self.waiters[g]}))

    def predecessors(self, node: Node) -> tuple[Node, ...]:
        """The nodes that must finish before ``node`` runs."""
        return tuple(self.nodes[i] for i in self.predecessor_indices(self.index[node]))

    def successors(self, node: Node) -> tuple[Node, ...]:
        """The nodes that wait for ``node``."""
        return tuple(self.nodes[i] for i in self.successor_indices(self.index[node]))

    def edges(self) -> Iterator[tuple[Node, Node]]:
        """Every ``(node, required)`` edge, expanded (O(edges): for tests and diagrams)."""
        for i, node in enumerate(self.nodes):
            for p in self.predecessor_indices(i):
                yield node, self.nodes[p]

    def edge_count(self) -> int:
        """The number of expanded edges (O(edges))."""
        return sum(len(self.predecessor_indices(i)) for i in range(len(self.nodes)))

    def topological_order(self) -> tuple[Node, ...]:
        """All nodes, each after all of its predecessors."""
        return tuple(self.nodes[i] for i in self.order)


def build_graph(
    versions: Iterable[ResourceVersion],
    dependencies: Mapping[str, Set[str]],
    chosen: Mapping[str, VersionId],
    *,
    cleanup: bool = True,
) -> ConvergenceGraph:
    """Build the graph converging ``versions`` to a template.

    Args:
        versions: every version of the stack (DELETE_COMPLETE ones are ignored), including the
            INIT rows just inserted for :attr:`Selection.missing`.
        dependencies: the new template's ``name -> names it requires``
            (``StackDefinition.dependencies()``); empty for delete.
        chosen: the version converged for each name of ``dependencies``.
        cleanup: whether to add cleanup nodes (False for check, resume and snapshot).

    Raises:
        ResourceNotFound: a name has no chosen version, or requires an unknown name.
        CircularDependency: the dependencies (or stored ``requires``) form a cycle.
    """
    builder = _Builder({v.id: v for v in versions if not v.deleted}, dependencies, chosen)
    builder.add_nodes(cleanup=cleanup)
    builder.add_update_waits()
    if cleanup:
        builder.add_cleanup_waits()
    return builder.finish()


def graph_for(
    operation: Action,
    versions: Iterable[ResourceVersion],
    dependencies: Mapping[str, Set[str]],
    chosen: Mapping[str, VersionId],
) -> ConvergenceGraph:
    """Build the graph an operation runs (the shape differs per operation).

    * delete and abandon: cleanup nodes only, for every version, in reverse dependency order;
    * suspend: cleanup nodes only (suspend runs dependents first), for the chosen versions;
    * check, resume, snapshot: update nodes only, in dependency order;
    * create, adopt, update, rollback, restore: the full graph.
    """
    if operation in (Action.DELETE, Action.ABANDON):
        return build_graph(versions, {}, {})
    if operation is Action.SUSPEND:
        live = set(chosen.values())
        return build_graph([v for v in versions if v.id in live], {}, {})
    if operation in (Action.CHECK, Action.RESUME, Action.SNAPSHOT):
        return build_graph(versions, dependencies, chosen, cleanup=False)
    return build_graph(versions, dependencies, chosen)


class _Builder:
    """Accumulates nodes and deduplicated join groups, then checks for cycles."""

    def __init__(
        self,
        live: dict[VersionId, ResourceVersion],
        dependencies: Mapping[str, Set[str]],
        chosen: Mapping[str, VersionId],
    ) -> None:
        self.live = live
        self.dependencies = dependencies
        self.chosen = chosen
        self.nodes: list[Node] = []
        self.index: dict[Node, int] = {}
        self.groups: list[tuple[int, ...]] = []
        self.by_members: dict[tuple[int, ...], int] = {}
        self.waits: list[list[int]] = []

    def add_nodes(self, *, cleanup: bool) -> None:
        for name in self.dependencies:
            vid = self.chosen.get(name)
            if vid is None or vid not in self.live:
                raise errors.ResourceNotFound(
                    f"no version chosen for resource {name!r}", resource=name
                )
        updates = sorted(self.chosen[name] for name in self.dependencies)
        wanted = set(updates)
        # A chosen version that was never created has nothing to clean up; if it gets replaced
        # during the traversal, the traversal adds its cleanup then.
        cleanups = [
            vid
            for vid in sorted(self.live)
            if cleanup and not (vid in wanted and self.live[vid].state.action is Action.INIT)
        ]
        self.nodes = [Node(v, False) for v in cleanups] + [Node(v, True) for v in updates]
        self.index = {node: i for i, node in enumerate(self.nodes)}
        self.waits = [[] for _ in self.nodes]

    def group(self, members: tuple[int, ...]) -> int:
        gid = self.by_members.get(members)
        if gid is None:
            gid = len(self.groups)
            self.groups.append(members)
            self.by_members[members] = gid
        return gid

    def add_update_waits(self) -> None:
        memo: dict[frozenset[str], int] = {}
        for name, required in self.dependencies.items():
            if not required:
                continue
            key = required if isinstance(required, frozenset) else frozenset(required)
            gid = memo.get(key)
            if gid is None:
                gid = self.group(self.update_members(name, key))
                memo[key] = gid
            self.waits[self.index[Node(self.chosen[name], True)]].append(gid)

    def update_members(self, name: str, required: frozenset[str]) -> tuple[int, ...]:
        members = []
        for dep in required:
            vid = self.chosen.get(dep)
            if dep not in self.dependencies or vid is None:
                raise errors.ResourceNotFound(
                    f"resource {name!r} requires unknown resource {dep!r}", resource=name
                )
            members.append(self.index[Node(vid, True)])
        return tuple(sorted(members))

    def add_cleanup_waits(self) -> None:
        dependents = self.dependent_classes()
        class_groups: dict[tuple[int, ...], int] = {}
        for vid, version in sorted(self.live.items()):
            me = self.index.get(Node(vid, False))
            if me is None:
                continue
            own = self.index.get(Node(vid, True))
            if own is not None:
                self.waits[me].append(self.group((own,)))
            classes = dependents.classes_of.get(vid)
            if classes:
                gid = class_groups.get(classes)
                if gid is None:
                    gid = self.group(dependents.members(classes))
                    class_groups[classes] = gid
                self.waits[me].append(gid)
            if version.replaces is not None:
                old = self.index.get(Node(version.replaces, False))
                if old is not None:
                    self.waits[old].append(self.group((me,)))

    def dependent_classes(self) -> _Dependents:
        # Versions that required the same set share one class, so a layer of N versions each
        # requiring the whole previous layer costs O(N), not O(N^2), to invert.
        by_requires: dict[frozenset[VersionId], list[int]] = {}
        for vid, version in sorted(self.live.items()):
            me = self.index.get(Node(vid, False))
            if me is not None and version.requires:
                by_requires.setdefault(version.requires, []).append(me)
        result = _Dependents()
        for cid, (requires, members) in enumerate(by_requires.items()):
            result.class_members.append(members)
            for required in sorted(requires):
                if required in self.live:
                    result.pending.setdefault(required, []).append(cid)
        result.classes_of = {vid: tuple(cids) for vid, cids in result.pending.items()}
        return result

    def finish(self) -> ConvergenceGraph:
        n = len(self.nodes)
        waits = tuple(tuple(dict.fromkeys(w)) for w in self.waits)
        feeds: list[list[int]] = [[] for _ in range(n)]
        waiters: list[list[int]] = [[] for _ in self.groups]
        for gid, members in enumerate(self.groups):
            for m in members:
                feeds[m].append(gid)
        for i, node_waits in enumerate(waits):
            for gid in node_waits:
                waiters[gid].append(i)
        graph = ConvergenceGraph(
            nodes=tuple(self.nodes),
            names=tuple(self.live[node.version_id].name for node in self.nodes),
            index=self.index,
            versions=self.live,
            groups=tuple(self.groups),
            waits=waits,
            feeds=tuple(tuple(f) for f in feeds),
            waiters=tuple(tuple(w) for w in waiters),
            leaf_indices=tuple(i for i in range(n) if not waits[i]),
            root_indices=tuple(i for i in range(n) if not feeds[i]),
            order=(),
        )
        order = _topological_order(graph)
        return dataclasses.replace(graph, order=order)


class _Dependents:
    """Which versions required each version, as shared classes of cleanup node indices."""

    def __init__(self) -> None:
        self.class_members: list[list[int]] = []
        self.pending: dict[VersionId, list[int]] = {}
        self.classes_of: dict[VersionId, tuple[int, ...]] = {}

    def members(self, classes: tuple[int, ...]) -> tuple[int, ...]:
        if len(classes) == 1:
            return tuple(self.class_members[classes[0]])
        return tuple(sorted({m for c in classes for m in self.class_members[c]}))


def _topological_order(graph: ConvergenceGraph) -> tuple[int, ...]:
    group_left = [len(members) for members in graph.groups]
    wait_left = [len(w) for w in graph.waits]
    queue = collections.deque(graph.leaf_indices)
    order: list[int] = []
    while queue:
        i = queue.popleft()
        order.append(i)
        for gid in graph.feeds[i]:
            group_left[gid] -= 1
            if group_left[gid] == 0:
                for w in graph.waiters[gid]:
                    wait_left[w] -= 1
                    if wait_left[w] == 0:
                        queue.append(w)
    if len(order) < len(graph.nodes):
        raise errors.CircularDependency(_find_cycle(graph, set(order)))
    return tuple(order)


def _find_cycle(graph: ConvergenceGraph, finished: set[int]) -> list[str]:
    # Every unfinished node has an unfinished predecessor, so walking them must revisit a node.
    start = next(i for i in range(len(graph.nodes)) if i not in finished)
    path: list[int] = []
    seen: dict[int, int] = {}
    current = start
    while current not in seen:
        seen[current] = len(path)
        path.append(current)
        current = next(p for p in graph.predecessor_indices(current) if p not in finished)
    cycle = path[seen[current] :]
    cycle.reverse()
    return [graph.names[i] for i in cycle]
