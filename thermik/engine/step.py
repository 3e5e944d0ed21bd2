"""One decision in the making: the join and dispatch mechanics the handlers are built from.

Join counting works on the graph's groups (see :mod:`thermik.engine.graph`): finishing a node
decrements each group it belongs to; a group reaching zero decrements each node waiting for it;
a node with nothing left to wait for is *ready*. Ready cleanup nodes that have nothing to do are
finished on the spot; the others go to a FIFO queue and are dispatched while fewer than
``concurrency_limit`` nodes run. A :class:`Step` holds mutable copies of a
:class:`~thermik.engine.traversal.TraversalState`'s tables for one decision and produces the new
state and the commands at the end.
"""

from __future__ import annotations

import dataclasses

from immutables import Map

from thermik.engine.graph import Node
from thermik.engine.messages import (
    ArmTimer,
    CancelNode,
    CancelResource,
    CheckResource,
    CloseTraversal,
    Command,
    DispatchNode,
    MarkStackComplete,
    NodeData,
    NodeInputs,
    PersistStackState,
    RecordEvent,
    StartRollback,
    TimerKind,
)
from thermik.engine.operations import (
    PARTIAL_CHECK,
    WAIT_ENDED,
    NodeAction,
    cleanup_action,
    completed_reason,
    failed_reason,
    hook_for,
    paused_reason,
    stack_state,
    update_action,
)
from thermik.engine.states import Action, State, Status
from thermik.engine.traversal import Decision, HookWait, Phase, TraversalState
from thermik.engine.versions import VersionId

_NO_INPUT = NodeInputs()


class Step:
    """One decision in the making: mutable copies of the state's tables, and the commands."""

    def __init__(self, state: TraversalState, commands: list[Command] | None = None) -> None:
        self.state = state
        self.graph = state.graph
        self.tid = state.traversal_id
        self.commands: list[Command] = commands if commands is not None else []
        self.results = state.results.mutate()
        self.group_left = state.group_left.mutate()
        self.wait_left = state.wait_left.mutate()
        self.inputs = state.inputs.mutate()
        self.queue = state.queue.mutate()
        self.running = state.running.mutate()
        self.head = state.head
        self.tail = state.tail
        self.served_by = state.served_by
        self.serving = state.serving
        self.extras = state.extras
        self.paused = state.paused
        self.open_ends = state.open_ends
        self.phase = state.phase
        self.failures = state.failures
        self.reason = state.reason
        self.rollback_started = state.rollback_started
        self.cancelled = state.cancelled
        self.closed = state.closed
        #: Slots whose recorded results are replayed instead of dispatched (resume).
        self.recorded: dict[Node, NodeData | None] = {}

    # -- joins -------------------------------------------------------------------------------

    def node_at(self, slot: int) -> Node:
        n = len(self.graph.nodes)
        return self.graph.nodes[slot] if slot < n else self.extras[slot - n]

    def name_at(self, slot: int) -> str:
        return self.graph.versions[self.node_at(slot).version_id].name

    def action_for(self, slot: int) -> NodeAction:
        node = self.node_at(slot)
        if node.is_update:
            if node.version_id in self.served_by:
                return NodeAction.CREATE
            return update_action(self.state.operation, self.graph.versions[node.version_id].state)
        superseded = (
            not self.graph.has_update(node.version_id) or node.version_id in self.served_by
        )
        return cleanup_action(self.state.operation, superseded=superseded)

    def make_ready(self, slots: list[int]) -> None:
        """Finish or queue each of ``slots`` (now ready), cascading through no-op cleanups."""
        work = list(slots)
        position = 0
        while position < len(work):
            slot = work[position]
            position += 1
            node = self.node_at(slot)
            if node in self.recorded:
                self.results[slot] = self.recorded.pop(node)
                self.finish_slot(slot, work)
            elif not node.is_update and self.action_for(slot) is NodeAction.NOOP:
                self.results[slot] = None
                self.finish_slot(slot, work)
            else:
                self.queue[self.tail] = slot
                self.tail += 1

    def complete(self, slot: int, data: NodeData | None) -> None:
        """Record ``slot`` as finished with ``data`` and release what waited for it."""
        self.results[slot] = data
        work: list[int] = []
        self.finish_slot(slot, work)
        self.make_ready(work)

    def finish_slot(self, slot: int, ready: list[int]) -> None:
        graph = self.graph
        if slot >= len(graph.nodes):
            self.open_ends -= 1
            return
        feeds = graph.feeds[slot]
        if not feeds:
            self.open_ends -= 1
        for gid in feeds:
            left = self.group_left.get(gid, len(graph.groups[gid])) - 1
            self.group_left[gid] = left
            if left:
                continue
            for waiter in graph.waiters[gid]:
                need = len(graph.waits[waiter])
                if need > 1:
                    remaining = self.wait_left.get(waiter, need) - 1
                    self.wait_left[waiter] = remaining
                    if remaining:
                        continue
                ready.append(waiter)
        node = graph.nodes[slot]
        if node.is_update and node.version_id in self.served_by:
            self.add_extra_cleanup(node.version_id, ready)

    def add_extra_cleanup(self, version_id: VersionId, ready: list[int]) -> None:
        node = Node(version_id, False)
        if node in self.graph.index or node in self.extras:
            return
        self.extras = (*self.extras, node)
        self.open_ends += 1
        ready.append(len(self.graph.nodes) + len(self.extras) - 1)

    # -- dispatch ----------------------------------------------------------------------------

    @property
    def running_count(self) -> int:
        return len(self.running)

    def fill(self) -> None:
        """Dispatch queued slots while the concurrency limit allows."""
        limit = max(1, self.state.options.concurrency_limit)
        while self.head < self.tail and len(self.running) < limit:
            slot = self.queue.pop(self.head)
            self.head += 1
            self.dispatch(slot)

    def dispatch(self, slot: int, *, hooks: bool = True) -> None:
        """Send ``slot``'s node to its resource actor, unless (with ``hooks``) it stops at
        a ``pre-*`` hook first. A replacement stops at none: its slot stopped already."""
        node = self.node_at(slot)
        sent = node
        if node.is_update and node.version_id in self.served_by:
            sent = Node(self.served_by[node.version_id], True)
        elif hooks and self.stop_at_hook(slot, after=False):
            return
        self.running[slot] = sent
        message = CheckResource(
            sent,
            self.tid,
            self.name_at(slot),
            self.state.operation,
            self.action_for(slot),
            self.input_for(slot),
            None if sent == node else node,
        )
        self.commands.append(DispatchNode(message))

    # -- breakpoint hooks --------------------------------------------------------------------

    def stop_at_hook(self, slot: int, *, after: bool, data: NodeData | None = None) -> bool:
        """Stop ``slot`` at its ``pre-*`` (``post-*`` when ``after``, with its result
        ``data``) hook if the environment sets one for it; whether it stopped."""
        name = self.name_at(slot)
        hooks = self.state.options.hooks.get(name)
        if not hooks:
            return False
        hook = hook_for(self.state.operation, self.action_for(slot), "post" if after else "pre")
        if hook is None or hook not in hooks or (name, hook) in self.state.hooks_passed:
            return False
        node = self.node_at(slot)
        if data is not None:
            state = data.state
        elif after and not node.is_update:
            state = State(Action.DELETE, Status.COMPLETE)
        else:
            state = self.graph.versions[node.version_id].state
        self.paused = self.paused.set((name, hook), HookWait(slot, state, after, data))
        if (name, hook) not in self.state.hooks_recorded:
            reason = paused_reason(hook)
            self.commands.append(RecordEvent(self.tid, state, reason, name, node.version_id))
        return True

    def release_hooks(self) -> None:
        """End every wait at a hook: the traversal failed, nothing more is dispatched."""
        for (name, _), wait in sorted(self.paused.items(), key=lambda item: item[1].slot):
            version_id = self.node_at(wait.slot).version_id
            self.commands.append(RecordEvent(self.tid, wait.state, WAIT_ENDED, name, version_id))
        self.paused = Map()

    def input_for(self, slot: int) -> NodeInputs:
        if slot >= len(self.graph.nodes) or not self.node_at(slot).is_update:
            return _NO_INPUT
        waits = self.graph.waits[slot]
        if len(waits) == 1:
            cached = self.inputs.get(waits[0])
            if cached is None:
                cached = self.collect_input(waits)
                self.inputs[waits[0]] = cached
            return cached
        return self.collect_input(waits) if waits else _NO_INPUT

    def collect_input(self, waits: tuple[int, ...]) -> NodeInputs:
        collected: dict[str, NodeData] = {}
        for gid in waits:
            for member in self.graph.groups[gid]:
                data = self.results.get(member)
                if data is not None:
                    collected[data.name] = data
        return NodeInputs(collected)

    def running_items(self) -> list[tuple[int, Node | None]]:
        snapshot = self.running.finish()
        self.running = snapshot.mutate()
        return sorted(snapshot.items())

    # -- outcomes ----------------------------------------------------------------------------

    def emit_state(self, status: Status, reason: str) -> None:
        state = stack_state(self.state.operation, status)
        if self.state.operation is Action.CHECK and self.state.options.partial_check:
            reason += PARTIAL_CHECK
        if status is Status.COMPLETE:
            self.commands.append(MarkStackComplete(self.tid, state, reason))
        else:
            self.commands.append(PersistStackState(self.tid, state, reason))
        self.commands.append(RecordEvent(self.tid, state, reason))
        self.reason = reason

    def check_complete(self) -> None:
        """Finish the traversal once every root (and extra slot) finished."""
        if self.phase is not Phase.RUNNING or self.open_ends:
            return
        if self.failures:
            # Heat lists each resource's own failure reason: ``a: Resource CHECK failed: ...``.
            operation = self.state.operation
            detail = "; ".join(
                f"{name}: {failed_reason(operation, str(failure))}"
                for name, failure in self.failures
            )
            self.phase = Phase.FAILED
            self.emit_state(Status.FAILED, failed_reason(self.state.operation, detail))
        else:
            self.phase = Phase.COMPLETE
            self.emit_state(Status.COMPLETE, completed_reason(self.state.operation))
        self.close()

    def fail(
        self, reason: str, *, rollback: bool, cancel: str | None, record: bool = True
    ) -> None:
        """Mark the stack FAILED (unless not ``record``: the rollback takes over at once);
        optionally cancel running nodes (``cancel`` says why) and start a rollback."""
        self.phase = Phase.FAILED
        if record:
            self.emit_state(Status.FAILED, reason)
        else:
            self.reason = reason
        self.rollback_started = rollback
        self.release_hooks()
        if cancel is not None:
            self.cancel_running(cancel)
        if rollback:
            self.commands.append(StartRollback(self.tid, reason))
        self.check_drained()

    def cancel_running(self, why: str) -> None:
        grace = self.state.options.cancel_grace_seconds
        items = self.running_items()
        for _, node in items:
            if node is not None:
                self.commands.append(CancelNode(CancelResource(node, self.tid, grace, why)))
        if items and not self.rollback_started:
            self.commands.append(ArmTimer(self.tid, TimerKind.GRACE, grace))
        self.cancelled = True

    def check_drained(self) -> None:
        if self.phase is Phase.FAILED and not self.running_count:
            self.close()

    def close(self) -> None:
        if not self.closed:
            self.commands.append(CloseTraversal(self.tid))
            self.closed = True

    def decision(self) -> Decision:
        """The new state and the commands."""
        state = dataclasses.replace(
            self.state,
            phase=self.phase,
            results=self.results.finish(),
            group_left=self.group_left.finish(),
            wait_left=self.wait_left.finish(),
            inputs=self.inputs.finish(),
            queue=self.queue.finish(),
            head=self.head,
            tail=self.tail,
            running=self.running.finish(),
            served_by=self.served_by,
            serving=self.serving,
            extras=self.extras,
            paused=self.paused,
            open_ends=self.open_ends,
            failures=self.failures,
            reason=self.reason,
            rollback_started=self.rollback_started,
            cancelled=self.cancelled,
            closed=self.closed,
        )
        return Decision(state, tuple(self.commands))
