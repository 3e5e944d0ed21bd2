"""A small deterministic world for driving the pure convergence core in tests.

It plays the StackActor shell (executing commands in order, building graphs, inserting rows) and
the resource actors (performing node actions on in-memory version rows and replying), from a
queue, with no threads, database or mocks. Tests choose which resource replies happen when
(``hold``/``release``, or a seeded random order) and which ones fail or need replacement.
"""

from __future__ import annotations

import collections
import dataclasses
import random
from collections.abc import Callable, Mapping, Set

from thermik.engine import states
from thermik.engine.decide import decide
from thermik.engine.graph import ConvergenceGraph, Node, graph_for
from thermik.engine.messages import (
    ArmTimer,
    CancelNode,
    CheckResource,
    CloseTraversal,
    Command,
    CreateReplacementVersion,
    DispatchNode,
    Event,
    MarkStackComplete,
    NodeData,
    PersistNodeResult,
    PersistStackState,
    RecordEvent,
    RejectRequest,
    ReplacementCreated,
    ResourceDone,
    ResourceFailed,
    ResourceNeedsReplacement,
    StartRollback,
    StartTraversal,
    TraversalOptions,
)
from thermik.engine.operations import NodeAction, stack_state
from thermik.engine.states import Action, State, Status
from thermik.engine.traversal import Phase, TraversalState
from thermik.engine.versions import ResourceVersion, select_versions
from thermik.errors import Failure

Deps = Mapping[str, Set[str]]
EMPTY_TEMPLATE = 0


@dataclasses.dataclass
class Performed:
    """One action a resource actor carried out."""

    traversal_id: str
    name: str
    version_id: int
    action: NodeAction


class World:
    """A stack, its version rows and physical resources, and the shell around ``decide``."""

    def __init__(self, options: TraversalOptions | None = None, seed: int | None = None) -> None:
        self.options = options or TraversalOptions()
        self.rng = random.Random(seed) if seed is not None else None
        self.rows: dict[int, ResourceVersion] = {}
        self.physical: dict[int, str] = {}
        self.templates: dict[int, Deps] = {EMPTY_TEMPLATE: {}}
        self.current_template: int | None = None
        self.prev_template: int | None = None
        self.stack = states.INIT_COMPLETE
        self.stack_reason = ""
        self.current_traversal = ""
        self.state = TraversalState.idle()
        self.inbox: collections.deque[Event | Callable[[], None]] = collections.deque()
        self.pending: list[CheckResource] = []
        self.held: set[str] = set()
        self.fail_on: dict[tuple[str, NodeAction], int] = {}
        self.replace_on: set[str] = set()
        self.performed: list[Performed] = []
        self.dispatched: list[CheckResource] = []
        self.completed_nodes: dict[str, set[Node]] = collections.defaultdict(set)
        self.events: list[RecordEvent] = []
        self.timers: list[ArmTimer] = []
        self.rejected: list[RejectRequest] = []
        self.closed: list[str] = []
        self.cancelled: list[CancelNode] = []
        self.max_running = 0
        self.peaks: dict[str, int] = {}
        self.log: list[tuple[str, str, str]] = []
        self.dispatch_keys: set[tuple[str, Node]] = set()
        self.graphs: dict[str, ConvergenceGraph] = {}
        self._next_row = 1
        self._next_template = 1
        self._next_traversal = 1

    # -- the shell ---------------------------------------------------------------------------

    def template(self, deps: Deps) -> int:
        tid = self._next_template
        self._next_template += 1
        self.templates[tid] = {name: frozenset(req) for name, req in deps.items()}
        return tid

    def start(self, operation: Action, deps: Deps | None = None, **options: object) -> str:
        """Start ``operation`` (to the template ``deps`` if it changes the template)."""
        if deps is not None:
            template = self.template(deps)
        elif operation is Action.DELETE or operation is Action.ABANDON:
            template = EMPTY_TEMPLATE
        else:
            assert self.current_template is not None
            template = self.current_template
        return self.converge(operation, template, dataclasses.replace(self.options, **options))

    def converge(self, operation: Action, template: int, options: TraversalOptions) -> str:
        target = stack_state(operation, Status.IN_PROGRESS)
        states.check_transition(states.STACK, self.stack, target)
        before = self.current_template
        if operation not in (Action.CHECK, Action.SUSPEND, Action.RESUME, Action.SNAPSHOT):
            if operation not in (Action.CREATE, Action.ADOPT):
                self.prev_template = before
            self.current_template = template
        deps = self.templates[template]
        selection = select_versions(
            self.rows.values(), deps, new_template_id=template, current_template_id=before
        )
        chosen = dict(selection.chosen)
        for name in selection.missing:
            chosen[name] = self.insert(name, template).id
        graph = graph_for(operation, self.rows.values(), deps, chosen)
        traversal = f"t{self._next_traversal}"
        self._next_traversal += 1
        self.graphs[traversal] = graph
        self.stack, self.current_traversal = target, traversal
        self.feed(StartTraversal(traversal, operation, graph, options))
        return traversal

    def insert(self, name: str, template: int, **fields: object) -> ResourceVersion:
        row = ResourceVersion(
            self._next_row, name, states.INIT_COMPLETE, template_id=template, **fields
        )  # type: ignore[arg-type]
        self._next_row += 1
        self.rows[row.id] = row
        return row

    def feed(self, event: Event) -> None:
        if isinstance(event, ResourceDone) and event.traversal_id == self.state.traversal_id:
            slot = self.state.slot_of(event.node)
            if slot is not None and self.state.running.get(slot) == event.node:
                self.log.append(("done", event.traversal_id, self.state.name_at(slot)))
        decision = decide(self.state, event)
        self.state = decision.state
        self.max_running = max(self.max_running, len(self.state.running))
        tid = self.state.traversal_id
        self.peaks[tid] = max(self.peaks.get(tid, 0), len(self.state.running))
        for command in decision.commands:
            self.execute(command)

    def execute(self, command: Command) -> None:
        if isinstance(command, DispatchNode):
            self.check_ready(command.message)
            self.dispatched.append(command.message)
            self.pending.append(command.message)
        elif isinstance(command, CancelNode):
            self.cancelled.append(command)
            self.cancel(command)
        elif isinstance(command, PersistNodeResult):
            self.completed_nodes[command.traversal_id].add(command.node)
        elif isinstance(command, (PersistStackState, MarkStackComplete)):
            self.set_stack(command.traversal_id, command.state, command.reason)
            if isinstance(command, MarkStackComplete):
                self.purge()
        elif isinstance(command, RecordEvent):
            self.events.append(command)
        elif isinstance(command, StartRollback):
            self.inbox.append(lambda: self.rollback(command))
        elif isinstance(command, CreateReplacementVersion):
            self.inbox.append(lambda: self.replace(command))
        elif isinstance(command, ArmTimer):
            self.timers.append(command)
        elif isinstance(command, CloseTraversal):
            self.closed.append(command.traversal_id)
        elif isinstance(command, RejectRequest):
            self.rejected.append(command)
        else:  # pragma: no cover - a new command the simulator does not know
            raise AssertionError(command)

    def check_ready(self, message: CheckResource) -> None:
        """Record a dispatch, and any predecessor of its slot that had not finished."""
        self.log.append(("dispatch", message.traversal_id, message.name))
        state = self.state
        slot = state.slot_of(message.node)
        assert slot is not None, message
        key = (message.traversal_id, message.node)
        assert key not in self.dispatch_keys, f"{message.node} dispatched twice"
        self.dispatch_keys.add(key)
        if slot < len(state.graph.nodes):
            missing = set(state.graph.predecessor_indices(slot)) - set(state.results)
            assert not missing, f"{message.node} dispatched before {missing}"

    def set_stack(self, traversal: str, state: State, reason: str) -> None:
        if traversal != self.current_traversal:
            return
        states.check_transition(states.STACK, self.stack, state)
        self.stack, self.stack_reason = state, reason

    def purge(self) -> None:
        self.rows = {vid: row for vid, row in self.rows.items() if not row.deleted}
        self.prev_template = None

    def rollback(self, command: StartRollback) -> None:
        if command.traversal_id != self.current_traversal:
            return
        target = self.prev_template if self.prev_template is not None else EMPTY_TEMPLATE
        self.prev_template = None
        self.converge(Action.ROLLBACK, target, self.options)

    def replace(self, command: CreateReplacementVersion) -> None:
        old = self.rows[command.replaces]
        new = self.insert(
            command.name,
            self.current_template or EMPTY_TEMPLATE,
            requires=command.requires,
            replaces=old.id,
        )
        self.rows[old.id] = dataclasses.replace(old, replaced_by=new.id)
        self.feed(ReplacementCreated(command.node, command.traversal_id, new.id))

    # -- the resource actors -----------------------------------------------------------------

    def cancel(self, command: CancelNode) -> None:
        message = command.message
        for pending in list(self.pending):
            if pending.node == message.node and pending.traversal_id == message.traversal_id:
                self.pending.remove(pending)
                self.settle_row(pending, Status.FAILED)
                failure = Failure("Cancelled", f"{pending.name} cancelled")
                self.inbox.append(ResourceFailed(pending.node, pending.traversal_id, failure))

    def perform(self, message: CheckResource) -> Event:
        """Carry out ``message`` on the rows and reply as a resource actor would."""
        row = self.rows[message.node.version_id]
        action = message.action
        if action is NodeAction.CREATE and row.state.action is not Action.INIT:
            action = NodeAction.UPDATE
        self.performed.append(Performed(message.traversal_id, message.name, row.id, action))
        if self.fail_on.get((message.name, action), 0) > 0:
            self.fail_on[(message.name, action)] -= 1
            self.settle_row(message, Status.FAILED, action)
            failure = Failure("ResourceInError", f"resources.{message.name}: went to ERROR")
            return ResourceFailed(message.node, message.traversal_id, failure)
        if action is NodeAction.UPDATE and (
            message.name in self.replace_on or row.state.status is Status.FAILED
        ):
            self.replace_on.discard(message.name)
            return ResourceNeedsReplacement(message.node, message.traversal_id, "image changed")
        state = self.settle_row(message, Status.COMPLETE, action)
        data = NodeData(row.id, row.name, f"{row.name}-{row.id}", {}, state)
        return ResourceDone(
            message.node, message.traversal_id, data if message.node.is_update else None
        )

    def settle_row(
        self, message: CheckResource, status: Status, action: NodeAction | None = None
    ) -> State:
        row = self.rows[message.node.version_id]
        row_action = _ROW_ACTION.get(action or message.action, row.state.action)
        if action is NodeAction.CREATE and row.state.action is not Action.INIT:
            row_action = Action.UPDATE
        started = State(row_action, Status.IN_PROGRESS)
        if row.state.status is not Status.IN_PROGRESS:
            states.check_transition(states.RESOURCE, row.state, started, resource=row.name)
        final = State(row_action, status)
        fields: dict[str, object] = {"state": final}
        if message.node.is_update:
            # As Heat does: while converging, a version requires both its old and new
            # dependencies; only success drops the old ones.
            new = frozenset(d.version_id for d in message.input_data.values())
            fields["requires"] = new if status is Status.COMPLETE else row.requires | new
        if message.node.is_update and status is Status.COMPLETE:
            fields["template_id"] = self.current_template
            self.physical[row.id] = row.name
        if row_action is Action.DELETE and status is Status.COMPLETE:
            if action is not NodeAction.RETAIN:
                self.physical.pop(row.id, None)
            for other in list(self.rows.values()):
                if other.replaces == row.id:
                    self.rows[other.id] = dataclasses.replace(other, replaces=None)
        self.rows[row.id] = dataclasses.replace(row, **fields)  # type: ignore[arg-type]
        return final

    # -- driving -----------------------------------------------------------------------------

    def hold(self, *names: str) -> None:
        self.held.update(names)

    def release(self, *names: str) -> None:
        self.held.difference_update(names)

    def ready_messages(self) -> list[CheckResource]:
        # A resource actor works on one message of its version at a time, in arrival order.
        ready, busy = [], set()
        for message in self.pending:
            version = message.node.version_id
            if version not in busy and message.name not in self.held:
                ready.append(message)
            busy.add(version)
        return ready

    def step(self) -> bool:
        """Process one inbox item, else one resource message; False when nothing is left."""
        if self.inbox:
            item = self.inbox.popleft()
            if callable(item):
                item()
            else:
                self.feed(item)
            return True
        ready = self.ready_messages()
        if not ready:
            return False
        message = ready[self.rng.randrange(len(ready))] if self.rng else ready[0]
        self.pending.remove(message)
        self.inbox.append(self.perform(message))
        return True

    def run(self, limit: int = 1_000_000) -> None:
        """Step until nothing is left to do (held messages stay pending)."""
        for _ in range(limit):
            if not self.step():
                return
        raise AssertionError("the simulation did not settle")

    def run_one(self, name: str) -> None:
        """Perform the pending message for ``name`` now and feed its reply."""
        message = next(m for m in self.pending if m.name == name)
        self.pending.remove(message)
        self.feed(self.perform(message))

    # -- observations ------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        return self.state.phase

    def live(self) -> dict[str, list[int]]:
        """Physical resources that exist, by name."""
        result: dict[str, list[int]] = collections.defaultdict(list)
        for vid, name in sorted(self.physical.items()):
            result[name].append(vid)
        return dict(result)

    def order(self, traversal: str | None = None) -> list[tuple[str, NodeAction]]:
        return [
            (p.name, p.action)
            for p in self.performed
            if traversal is None or p.traversal_id == traversal
        ]

    def position(self, name: str, action: NodeAction, traversal: str | None = None) -> int:
        return self.order(traversal).index((name, action))


_ROW_ACTION = {
    NodeAction.CREATE: Action.CREATE,
    NodeAction.ADOPT: Action.ADOPT,
    NodeAction.UPDATE: Action.UPDATE,
    NodeAction.CHECK: Action.CHECK,
    NodeAction.SUSPEND: Action.SUSPEND,
    NodeAction.RESUME: Action.RESUME,
    NodeAction.SNAPSHOT: Action.SNAPSHOT,
    NodeAction.DELETE: Action.DELETE,
    NodeAction.RETAIN: Action.DELETE,
}


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
            deps[name] = previous
        previous = frozenset(names)
    return deps
