"""Every message that crosses an actor boundary, and every command the engine core emits.

All are frozen, slotted dataclasses: no dicts travel between actors. Three families:

* **Events** (:data:`Event`) are what a StackActor feeds to
  :func:`thermik.engine.decide.decide`. It receives ``ResourceDone``, ``ResourceFailed`` and
  ``ResourceNeedsReplacement`` from resource actors, and produces the others itself: from API
  requests (``StartTraversal``, ``CancelRequested``), from its store (``ResumeTraversal``,
  ``ReplacementCreated``, ``Supersede``), from its timers (``TimeoutFired``,
  ``GraceExpired``), and ``ShellFault`` when it failed.
* **Commands** (:data:`Command`) are what ``decide`` asks the StackActor to do. The shell executes
  them *in order*: a ``PersistNodeResult`` comes before the ``DispatchNode`` of the successors it
  enables, so nothing is acted on before it is durable.
* **Resource, delivery and nested-stack messages** (``CheckResource``, ``CancelResource``,
  ``SignalReceived``, ``DeliverMetadata``, ``MetadataDelivered``, ``StackSettled``) travel between
  the other actors.
* **Shell messages** (``ConvergeRequest``, ``CancelStack``, ``ClearHook``, ``ResumeStack``,
  ``RunNode``, ``StepFinished``, ``PollDue``, ``SignalRequest``) are the actor shell's own
  traffic: requests from the runtime facade, and a resource actor's conversation with its
  executor jobs and timers. They never reach :func:`~thermik.engine.decide.decide`.

Every message about a traversal carries its ``traversal_id``: the id fences every write, and a
message for another traversal than the current one is ignored.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterator, Mapping
from typing import Any, Generic, Protocol, TypeVar

from immutables import Map

from thermik.engine.graph import ConvergenceGraph, Node
from thermik.engine.operations import NodeAction
from thermik.engine.states import Action, State
from thermik.engine.versions import VersionId
from thermik.errors import Failure

#: An attribute name, or a path into an attribute (``get_attr: [server, networks, net0, 0]``).
AttributeKey = str | tuple[str | int, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class NodeData:
    """What a finished update node tells its successors (Heat's ``NodeData``).

    Attributes:
        version_id: the version that produced it (for a replacement: the new version, so
            dependents record ``requires`` on it).
        name: the logical resource name.
        reference_id: what ``get_resource`` returns (usually the physical id).
        attributes: the attribute values other resources' definitions reference, and only those.
        state: the version's state after the node.
    """

    version_id: VersionId
    name: str
    reference_id: str | None
    attributes: Mapping[AttributeKey, object]
    state: State


class NodeInputs(Mapping[str, NodeData]):
    """The node data of a node's update predecessors, by name (read-only), with their version
    ids in ascending order: what the node's version ``requires`` once converged.

    The members of a layer receive the same object, so the ids of a previous layer of
    hundreds are collected and sorted once, not once per member.
    """

    __slots__ = ("_data", "_ids")

    def __init__(self, data: Mapping[str, NodeData] | None = None) -> None:
        self._data: dict[str, NodeData] = dict(data or {})
        self._ids = tuple(sorted({one.version_id for one in self._data.values()}))

    @property
    def version_ids(self) -> tuple[VersionId, ...]:
        """The predecessors' version ids, ascending, without repeats."""
        return self._ids

    def __getitem__(self, name: str) -> NodeData:
        return self._data[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"NodeInputs({self._data!r})"


@dataclasses.dataclass(frozen=True, slots=True)
class TraversalOptions:
    """Per-traversal settings, from the request and ``[engine]`` configuration.

    Attributes:
        concurrency_limit: at most this many nodes are dispatched and unfinished at once (a
            value below 1 counts as 1).
        disable_rollback: a failure leaves the stack FAILED instead of rolling back.
        timeout_seconds: the traversal's deadline from its start; ``None`` for none.
        cancel_grace_seconds: how long a cancelled resource action may take to stop.
        partial_check: a CHECK cannot check every resource (some plugins have no check); its
            outcome's reason says so, as Heat's does.
        hooks: the breakpoint hooks (``pre-create`` ... ``post-delete``) the environment sets
            on each resource name (names without any are absent).
    """

    concurrency_limit: int = 64
    disable_rollback: bool = False
    timeout_seconds: float | None = None
    cancel_grace_seconds: float = 30.0
    partial_check: bool = False
    hooks: Mapping[str, frozenset[str]] = Map()


class TimerKind(enum.Enum):
    """The timers a StackActor arms on behalf of the core."""

    #: The traversal's deadline; fires :class:`TimeoutFired`.
    DEADLINE = "DEADLINE"
    #: The grace period for cancelled nodes to stop; fires :class:`GraceExpired`.
    GRACE = "GRACE"


# -- messages to and from resource actors ------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class CheckResource:
    """Tell the resource actor of ``node.version_id`` to converge one node.

    Attributes:
        node: the node to run (for a replacement, the new version's update node).
        traversal_id: the traversal it belongs to; echo it in the reply.
        name: the logical resource name.
        operation: the traversal's operation.
        action: what to do.
        input_data: the node data of the update predecessors, by name (empty for cleanup).
        join_node: the graph node the result is recorded under (for a replacement, the
            replaced version's node); the actor may record it with its own final write.

    The resource actor serialises its version's work: a CheckResource arriving while it runs
    another traversal's action waits for that action to end. While converging it stores
    ``requires`` as the old ids plus the ids in ``input_data``, and only the latter on success
    (so a failed update's version is still cleaned up after what it may point to). It replies
    ``ResourceDone``, ``ResourceFailed`` or ``ResourceNeedsReplacement`` to the StackActor.
    """

    node: Node
    traversal_id: str
    name: str
    operation: Action
    action: NodeAction
    input_data: NodeInputs
    join_node: Node | None = None

    @property
    def joins_as(self) -> Node:
        """The graph node the result is recorded under."""
        return self.node if self.join_node is None else self.join_node


@dataclasses.dataclass(frozen=True, slots=True)
class CancelResource:
    """Tell a resource actor to stop the action it runs for ``node`` (``handle_*_cancel``).

    It replies ``ResourceFailed`` (or ``ResourceDone`` if the action finished first); after
    ``grace_seconds`` it stops waiting for the plugin and reports the failure anyway. ``why``
    is the cause the aborted action's status reason names (``Timed out`` for the deadline).
    """

    node: Node
    traversal_id: str
    grace_seconds: float
    why: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class ResourceDone:
    """A node finished; ``node_data`` is ``None`` for cleanup nodes.

    ``recorded``: the actor stored the join record of the result (``CheckResource.joins_as``,
    this node, ``node_data``) in the same transaction as the version's final state, so the
    stack need not append it. ``acted``: the node changed something (an update that found
    nothing to change did not; a ``post-update`` hook stops only after one that did).
    """

    node: Node
    traversal_id: str
    node_data: NodeData | None
    recorded: bool = False
    acted: bool = True


@dataclasses.dataclass(frozen=True, slots=True)
class ResourceFailed:
    """A node failed (or was cancelled), or the shell could not create a replacement version."""

    node: Node
    traversal_id: str
    failure: Failure


@dataclasses.dataclass(frozen=True, slots=True)
class ResourceNeedsReplacement:
    """An update node cannot converge its version in place; nothing was changed yet."""

    node: Node
    traversal_id: str
    reason: str = ""


# -- events the StackActor produces itself -----------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class StartTraversal:
    """Start a traversal, superseding any other one (after the shell's stack-row CAS)."""

    traversal_id: str
    operation: Action
    graph: ConvergenceGraph
    options: TraversalOptions = TraversalOptions()


@dataclasses.dataclass(frozen=True, slots=True)
class ResumeTraversal:
    """Continue a traversal after a restart or an engine takeover, from its stored records.

    Attributes:
        completed: the recorded node results (``PersistNodeResult``), by graph node.
        replacements: old version -> replacement version, for replacements made in this
            traversal (rows whose ``replaces`` is set and were inserted by it).
        options: with ``timeout_seconds`` set to the time that is left.
        hooks_waiting: (resource name, hook) the traversal's events show waiting: stopping
            there again records no second event.
        hooks_cleared: (resource name, hook) the traversal's events show cleared: the node
            does not stop there again.
    """

    traversal_id: str
    operation: Action
    graph: ConvergenceGraph
    options: TraversalOptions
    completed: Mapping[Node, NodeData | None]
    replacements: Mapping[VersionId, VersionId]
    hooks_waiting: frozenset[tuple[str, str]] = frozenset()
    hooks_cleared: frozenset[tuple[str, str]] = frozenset()


@dataclasses.dataclass(frozen=True, slots=True)
class ReplacementCreated:
    """The shell inserted the replacement version asked for by ``CreateReplacementVersion``."""

    node: Node
    traversal_id: str
    replacement: VersionId


@dataclasses.dataclass(frozen=True, slots=True)
class TimeoutFired:
    """The traversal's deadline timer fired."""

    traversal_id: str


@dataclasses.dataclass(frozen=True, slots=True)
class GraceExpired:
    """The grace timer for cancelled nodes fired."""

    traversal_id: str


@dataclasses.dataclass(frozen=True, slots=True)
class CancelRequested:
    """A user cancelled the traversal (``cancel_update`` or ``cancel_without_rollback``)."""

    traversal_id: str
    rollback: bool


@dataclasses.dataclass(frozen=True, slots=True)
class HookCleared:
    """A signal ``{"unset_hook": hook}`` arrived for resource ``name`` (Heat's ``stack hook
    clear``); a hook the resource is not stopped at is rejected (``RejectRequest``)."""

    traversal_id: str
    name: str
    hook: str


@dataclasses.dataclass(frozen=True, slots=True)
class Supersede:
    """The stack's current traversal moved on to ``by`` elsewhere (another engine, or a CAS)."""

    traversal_id: str
    by: str


@dataclasses.dataclass(frozen=True, slots=True)
class ShellFault:
    """The shell failed unexpectedly while it ran the traversal's commands (a bug, or a store
    error it did not expect): the traversal fails, as a bug inside ``decide`` does, rather
    than wait for what the lost commands would have brought."""

    traversal_id: str
    failure: Failure


Event = (
    StartTraversal
    | ResumeTraversal
    | ResourceDone
    | ResourceFailed
    | ResourceNeedsReplacement
    | ReplacementCreated
    | TimeoutFired
    | GraceExpired
    | CancelRequested
    | HookCleared
    | Supersede
    | ShellFault
)


# -- commands ----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class DispatchNode:
    """Tell ``message`` to the resource actor of ``message.node.version_id``."""

    message: CheckResource


@dataclasses.dataclass(frozen=True, slots=True)
class CancelNode:
    """Tell ``message`` to the resource actor of ``message.node.version_id``."""

    message: CancelResource


@dataclasses.dataclass(frozen=True, slots=True)
class PersistNodeResult:
    """Append the join record ``(traversal, node, sender, payload)``: one O(1) write.

    ``node`` is the graph node; ``sender`` the node that ran (they differ for a replacement).
    ``ResumeTraversal.completed`` is rebuilt from these records.
    """

    traversal_id: str
    node: Node
    sender: Node
    node_data: NodeData | None
    #: The resource actor stored this record already (see ``ResourceDone.recorded``).
    recorded: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class PersistStackState:
    """Store the stack's state and reason, by CAS on ``traversal_id`` (FAILED outcomes)."""

    traversal_id: str
    state: State
    reason: str


@dataclasses.dataclass(frozen=True, slots=True)
class MarkStackComplete:
    """Store the COMPLETE state by CAS on ``traversal_id``, then purge.

    Purge as Heat does: drop DELETE_COMPLETE versions and the previous template; for a
    DELETE_COMPLETE stack, delete its credentials and soft-delete the stack row.
    """

    traversal_id: str
    state: State
    reason: str


@dataclasses.dataclass(frozen=True, slots=True)
class RecordEvent:
    """Append an event to the stack's event list (a stack event unless ``resource_name``:
    then an event of version ``version_id`` in ``state``, e.g. stopping at a hook)."""

    traversal_id: str
    state: State
    reason: str
    resource_name: str | None = None
    version_id: VersionId | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class StartRollback:
    """Start a ROLLBACK traversal to the previous template (empty after a failed create).

    The shell loads the stack's previous raw template, selects versions, builds the graph,
    compare-and-swaps a new traversal id from ``traversal_id``, and feeds ``StartTraversal``.
    """

    traversal_id: str
    reason: str


@dataclasses.dataclass(frozen=True, slots=True)
class CreateReplacementVersion:
    """Insert a replacement version for ``replaces`` and feed back ``ReplacementCreated``.

    In one transaction: insert the row (INIT_COMPLETE, same name, ``replaces``, ``requires``,
    this traversal's template) and CAS the old row's ``replaced_by``. On failure feed back
    ``ResourceFailed(node, traversal_id, failure)``.
    """

    traversal_id: str
    node: Node
    name: str
    replaces: VersionId
    requires: frozenset[VersionId]


@dataclasses.dataclass(frozen=True, slots=True)
class ArmTimer:
    """Schedule ``TimeoutFired`` (DEADLINE) or ``GraceExpired`` (GRACE) after ``seconds``."""

    traversal_id: str
    kind: TimerKind
    seconds: float


@dataclasses.dataclass(frozen=True, slots=True)
class CloseTraversal:
    """The traversal is over: cancel its timers and drop its join records.

    Nodes of it may still be running when the close follows a grace period; their replies are
    ignored. After this the StackActor may stop once it has no other traversal.
    """

    traversal_id: str


@dataclasses.dataclass(frozen=True, slots=True)
class RejectRequest:
    """Answer the caller of a request that could not be honoured (e.g. an illegal cancel)."""

    traversal_id: str
    failure: Failure


Command = (
    DispatchNode
    | CancelNode
    | PersistNodeResult
    | PersistStackState
    | MarkStackComplete
    | RecordEvent
    | StartRollback
    | CreateReplacementVersion
    | ArmTimer
    | CloseTraversal
    | RejectRequest
)


# -- other actors --------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class StackSettled:
    """A (nested) stack's traversal ended; sent to the parent resource that subscribed to it."""

    stack_id: str
    traversal_id: str
    state: State
    reason: str


@dataclasses.dataclass(frozen=True, slots=True)
class SignalReceived:
    """A signal for a resource arrived (API, TempURL, Zaqar); ``details`` is the payload."""

    stack_id: str
    resource_name: str
    details: Mapping[str, object]


@dataclasses.dataclass(frozen=True, slots=True)
class DeliverMetadata:
    """Tell a ServerMetadataActor that the deployments of ``server_id`` changed."""

    server_id: str
    deployment_id: str
    reason: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class MetadataDelivered:
    """A ServerMetadataActor confirmed the server sees ``generation`` (read back)."""

    server_id: str
    generation: int


# -- shell messages ------------------------------------------------------------------------------

_Context = TypeVar("_Context")
_Result = TypeVar("_Result")
_Answered_contra = TypeVar("_Answered_contra", contravariant=True)


class Answer(Protocol[_Answered_contra]):
    """Where the answer to an edge request goes (a ``concurrent.futures.Future`` at run time)."""

    def set_result(self, result: _Answered_contra) -> None:
        """Answer with a value."""

    def set_exception(self, exception: BaseException | None) -> None:
        """Answer with an error."""

    def done(self) -> bool:
        """Whether it was answered already."""
        ...


@dataclasses.dataclass(frozen=True, slots=True)
class ConvergeRequest:
    """Converge a stored stack: what the orchestration service asks the runtime to do.

    Attributes:
        stack_id: the stack.
        operation: CREATE, UPDATE, DELETE, ABANDON, ADOPT, CHECK, SUSPEND, RESUME, SNAPSHOT,
            RESTORE or ROLLBACK.
        template_id: the raw template to converge to (CREATE/UPDATE/ADOPT/RESTORE); ``None``
            keeps the stack's current one.
        expected_traversal: the traversal the caller read; ``None`` supersedes whatever runs.
        disable_rollback: ``None`` keeps the stack's setting.
        timeout_mins: ``None`` keeps the stack's setting (or the engine default).
        snapshot_id: the snapshot a SNAPSHOT fills or a RESTORE reads.
        adopt_data: ADOPT: Heat's ``adopt_stack_data`` resources map.
        timeout_seconds: a deadline finer than minutes for this traversal (tests, CLI);
            overrides ``timeout_mins`` for it.
    """

    stack_id: str
    operation: Action
    template_id: int | None = None
    expected_traversal: str | None = None
    disable_rollback: bool | None = None
    timeout_mins: int | None = None
    snapshot_id: str | None = None
    adopt_data: Mapping[str, Any] | None = None
    timeout_seconds: float | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class CancelStack:
    """Cancel the stack's running traversal (``cancel_update`` / ``cancel_without_rollback``)."""

    stack_id: str
    rollback: bool


@dataclasses.dataclass(frozen=True, slots=True)
class ClearHook:
    """Clear the hook resource ``resource_name`` of the stack is stopped at (a signal
    ``{"unset_hook": hook}``); raises ``InvalidBreakPointHook`` if it is not stopped there."""

    stack_id: str
    resource_name: str
    hook: str


@dataclasses.dataclass(frozen=True, slots=True)
class ResumeStack:
    """Take over the stack's traversal left IN_PROGRESS (restart, or a dead engine's lease)."""

    stack_id: str


@dataclasses.dataclass(frozen=True, slots=True)
class RunNode(Generic[_Context]):
    """A StackActor hands ``check`` to a resource actor with the traversal's shell context."""

    check: CheckResource
    context: _Context


@dataclasses.dataclass(frozen=True, slots=True)
class StepFinished(Generic[_Result]):
    """An executor job of a resource actor ended: ``result``, or ``failure`` if it raised."""

    job: int
    result: _Result | None
    failure: Failure | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class PollDue:
    """A resource actor's timer fired: poll job ``job`` again or retry its lock; with
    ``grace``, the grace period of its cancel ran out."""

    job: int
    grace: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class SignalRequest:
    """Hand ``signal`` to the resource actor of ``version_id``; the outcome goes to ``answer``.

    ``answer`` receives the signal event's reason, or ``InvalidSignal`` with nothing stored.
    """

    signal: SignalReceived
    version_id: VersionId
    answer: Answer[str]
