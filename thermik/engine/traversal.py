"""The state of one traversal: an immutable value the decision functions map to a new one.

:class:`TraversalState` is immutable: its per-node tables are persistent maps
(``immutables.Map``), so a decision costs time proportional to what changed, never to the size of
the stack, and an old state stays valid after a decision (tests may branch from it). How the
tables change is in :mod:`thermik.engine.step`.

A *slot* is a graph node's index. When a version is replaced, the replacement's update node fills
the old version's update slot (it reports under its own node; the state maps it back), so the
successors and the old version's cleanup wait for the replacement. A replaced version that has no
cleanup node in the graph (it was created by this very traversal) gets an extra cleanup slot
numbered after the graph's nodes.
"""

from __future__ import annotations

import dataclasses
import enum

from immutables import Map

from thermik.engine.graph import ConvergenceGraph, Node, build_graph
from thermik.engine.messages import Command, NodeData, NodeInputs, TraversalOptions
from thermik.engine.states import Action, State
from thermik.engine.versions import VersionId
from thermik.errors import Failure

EMPTY_GRAPH = build_graph((), {}, {})


class Phase(enum.Enum):
    """Where a traversal is in its life."""

    #: No traversal has started.
    IDLE = "IDLE"
    #: Dispatching nodes as they become ready.
    RUNNING = "RUNNING"
    #: The stack was marked FAILED: nothing new is dispatched; running nodes finish.
    FAILED = "FAILED"
    #: Every root finished; the stack was marked COMPLETE.
    COMPLETE = "COMPLETE"
    #: A newer traversal took over; every message for this one is ignored.
    SUPERSEDED = "SUPERSEDED"


@dataclasses.dataclass(frozen=True, slots=True)
class HookWait:
    """A slot stopped at a breakpoint hook until a signal clears it.

    Attributes:
        slot: the stopped slot.
        state: the resource's state while it waits (what its events show).
        after: a ``post-*`` hook: the node ran; clearing releases its successors. Otherwise
            clearing dispatches the node.
        data: a ``post-*`` hook's node result, handed on when it is cleared.
    """

    slot: int
    state: State
    after: bool = False
    data: NodeData | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class TraversalState:
    """Everything the StackActor knows about its current traversal.

    Attributes:
        traversal_id: the fencing token; messages for other ids are ignored.
        operation: what the traversal does.
        graph: the convergence graph.
        options: concurrency limit, rollback, timeout, cancel grace.
        phase: see :class:`Phase`.
        results: finished slot -> node data (``None`` for cleanup and failed nodes).
        group_left: group -> members not finished yet (absent: all of them).
        wait_left: slot -> groups not complete yet (absent: all; only for multi-group slots).
        inputs: group -> the input data its members' results make (built once, shared).
        queue: FIFO of ready slots, keyed by sequence number from ``head`` to ``tail``.
        running: slot -> node dispatched for it, or ``None`` while its replacement version is
            being inserted.
        served_by: replaced version -> its replacement, for replacements made by this traversal.
        serving: replacement version -> the slot it fills.
        extras: cleanup nodes added for replaced versions the graph had no cleanup node for.
        paused: (resource name, hook) -> the slot stopped at that hook.
        hooks_recorded: hooks whose wait an earlier run of the traversal recorded already.
        hooks_passed: hooks an earlier run of the traversal saw cleared.
        open_ends: roots and extra slots not finished yet; zero means complete.
        failures: ``(resource name, failure)`` of every failed node.
        reason: the stack status reason of the last state change.
        rollback_started: a rollback traversal was requested.
        cancelled: running nodes were told to cancel.
        closed: ``CloseTraversal`` was emitted.
    """

    traversal_id: str
    operation: Action
    graph: ConvergenceGraph
    options: TraversalOptions
    phase: Phase
    results: Map[int, NodeData | None] = dataclasses.field(default_factory=Map)
    group_left: Map[int, int] = dataclasses.field(default_factory=Map)
    wait_left: Map[int, int] = dataclasses.field(default_factory=Map)
    inputs: Map[int, NodeInputs] = dataclasses.field(default_factory=Map)
    queue: Map[int, int] = dataclasses.field(default_factory=Map)
    head: int = 0
    tail: int = 0
    running: Map[int, Node | None] = dataclasses.field(default_factory=Map)
    served_by: Map[VersionId, VersionId] = dataclasses.field(default_factory=Map)
    serving: Map[VersionId, int] = dataclasses.field(default_factory=Map)
    extras: tuple[Node, ...] = ()
    paused: Map[tuple[str, str], HookWait] = dataclasses.field(default_factory=Map)
    hooks_recorded: frozenset[tuple[str, str]] = frozenset()
    hooks_passed: frozenset[tuple[str, str]] = frozenset()
    open_ends: int = 0
    failures: tuple[tuple[str, Failure], ...] = ()
    reason: str = ""
    rollback_started: bool = False
    cancelled: bool = False
    closed: bool = False

    @classmethod
    def idle(cls) -> TraversalState:
        """The state of a StackActor before its first traversal."""
        return cls("", Action.INIT, EMPTY_GRAPH, TraversalOptions(), Phase.IDLE, closed=True)

    @classmethod
    def fresh(
        cls,
        traversal_id: str,
        operation: Action,
        graph: ConvergenceGraph,
        options: TraversalOptions,
    ) -> TraversalState:
        """A traversal that has not dispatched anything yet."""
        return cls(
            traversal_id,
            operation,
            graph,
            options,
            Phase.RUNNING,
            open_ends=len(graph.root_indices),
        )

    def node_at(self, slot: int) -> Node:
        """The graph (or extra) node of ``slot``."""
        n = len(self.graph.nodes)
        return self.graph.nodes[slot] if slot < n else self.extras[slot - n]

    def name_at(self, slot: int) -> str:
        """The logical resource name of ``slot``."""
        return self.graph.versions[self.node_at(slot).version_id].name

    def slot_of(self, node: Node) -> int | None:
        """The slot a reply from ``node`` is about (mapping replacements back), if any."""
        slot = self.graph.index.get(node)
        if slot is None:
            if node.is_update:
                return self.serving.get(node.version_id)
            if node in self.extras:
                return len(self.graph.nodes) + self.extras.index(node)
        return slot

    @property
    def running_nodes(self) -> tuple[Node, ...]:
        """The nodes dispatched and not finished, in slot order."""
        return tuple(node for _, node in sorted(self.running.items()) if node is not None)

    @property
    def finished(self) -> int:
        """How many slots finished."""
        return len(self.results)


@dataclasses.dataclass(frozen=True, slots=True)
class Decision:
    """The outcome of one decision: the new state and the commands to execute, in order."""

    state: TraversalState
    commands: tuple[Command, ...]
