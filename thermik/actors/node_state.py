"""What a node's work holds, and the moves every part of it makes.

:class:`NodeState` is the base of :class:`~thermik.actors.node.NodeWork`: the state of one node's
convergence (the row, the plugin call, what it waits for, whether it holds the row's lock), the
:class:`Port` to its actor, and the moves the actions, the outcomes and the clean stop share:
building the plugin call, submitting a step, locking the row, waiting on a timer.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Callable
from typing import Protocol

from thermik.actors import node_rules, rows, steps
from thermik.actors.context import StoreContext
from thermik.actors.plan import TraversalPlan
from thermik.actors.services import Services
from thermik.actors.timers import TimerHandle
from thermik.engine.messages import Event, RunNode
from thermik.engine.states import RESOURCE, Action, State, Status, check_transition
from thermik.errors import LockConflict
from thermik.persistence.resource_values import Resource, ResourceChanges
from thermik.persistence.values import KEEP
from thermik.resources.context import DELETE_POLICY
from thermik.resources.plugin import Operation, Progress, Props, ResourcePlugin

#: Backoff of polls the plugin gives no hint for, and of lock retries: first, factor, cap.
BACKOFF = (0.05, 1.6, 5.0)
#: How often a lock lost to a stale atomic key is retried with a fresh read.
LOCK_ATTEMPTS = 5


class Port(Protocol):
    """What a node's work needs from its actor."""

    def submit(self, job: int, step: Callable[[], object], *, here: bool = False) -> None:
        """Run ``step`` on the executor (``here``: on the actor's thread); its outcome comes
        back as ``StepFinished(job)``."""

    def later(self, job: int, seconds: float, *, grace: bool = False) -> TimerHandle:
        """Send ``PollDue(job, grace)`` after ``seconds``."""

    def reply(self, stack_id: str, event: Event) -> None:
        """Tell the stack actor."""

    def finished(self, job: int) -> None:
        """The work is over: the actor may take its next one."""


class Waiting(enum.Enum):
    """What the work waits for."""

    NOTHING = "nothing"
    STEP = "step"
    POLL = "poll"
    LOCK = "lock"


class NodeState(abc.ABC):
    """The state of one node's convergence, and the moves its parts share."""

    def __init__(
        self, port: Port, services: Services, run: RunNode[TraversalPlan], job: int
    ) -> None:
        self.port = port
        self.services = services
        self.store = services.store
        self.check = run.check
        self.plan = run.context
        self.job = job
        self.row: Resource | None = None
        self.previous: Resource | None = None
        self.action = self.check.action
        self.call: steps.Call | None = None
        self.old_props: Props = {}
        self.progress: Progress | None = None
        self.waiting = Waiting.NOTHING
        self.timer: TimerHandle | None = None
        self.delay = BACKOFF[0]
        self.attempts = 0
        self.locked = False
        #: What the lock would write, while a store-only plugin's action runs ahead of it.
        self.ahead: rows.Ahead | None = None
        self.cancelled = False
        #: The reason a successful action records.
        self.settled_reason = rows.STATE_CHANGED
        #: Why the stack cancelled the work (named in the aborted action's reason).
        self.cancel_why = ""
        self.reported = False
        self.over = False
        #: The work took up an action a cleanly stopped engine suspended.
        self.resumed = False
        #: A wake arrived while a step ran: the next wait polls at once instead.
        self.woken = False

    @property
    def name(self) -> str:
        """The logical resource name."""
        return self.check.name

    @abc.abstractmethod
    def _begin(self) -> None:
        """Start (or restart) the work from ``self.row`` (see ``NodeWork.begin``)."""

    # -- helpers ------------------------------------------------------------------------------

    def _call(
        self,
        plugin: ResourcePlugin,
        props: Props,
        operation: Operation,
        *,
        never_created: bool = False,
        ahead: bool = False,
        deletion_policy: str = DELETE_POLICY,
    ) -> steps.Call:
        row = self.row
        assert row is not None
        version_id = row.id
        ctx = StoreContext(
            self.store,
            self.plan.stack,
            row.id,
            row.name,
            node_rules.type_of(self.plan, row),
            row.physical_resource_id,
            rng=lambda: self.services.rng(version_id),
            never_created=never_created,
            deferred_data=ahead,
            software=self.services.software,
            nested=self.services.nested,
            cloud=self.services.cloud_for(self.plan.root_id, self.plan.traversal_id),
            stack_users=self.services.stack_users,
            deletion_policy=deletion_policy,
        )
        attributes = None
        if self.check.node.is_update:
            wanted = self.plan.referenced.get(row.name, ())
            attributes = node_rules.attribute_names(plugin, wanted)
        self.call = steps.Call(plugin, ctx, props, operation, attributes)
        return self.call

    def _submit(self, step: Callable[[], object], *, here: bool = False) -> None:
        self.waiting = Waiting.STEP
        self.port.submit(self.job, step, here=here)

    def _run_ahead(self, ahead: rows.Ahead, step: Callable[[], object], *, here: bool) -> None:
        """Run a store-only plugin's action before locking the row (one write instead of the
        lock's, the data's and the unlock's: see ``ResourcePlugin.store_only``); ``ahead`` is
        what the lock would have written; ``here``: on the actor's thread (it returns at once,
        see ``ResourcePlugin.runs_inline``)."""
        self.ahead = ahead
        self._submit(step, here=here)

    def _lock(
        self,
        action: Action,
        changes: ResourceChanges,
        *,
        properties: Props | None = None,
        shown: Props | None = None,
        quiet: bool = False,
    ) -> bool:
        """Lock the row into ``<action>_IN_PROGRESS``, storing the ``properties`` it converges
        to (its event shows them, or ``shown``, the ones it has); False if the work restarted
        or waits."""
        row = self.row
        assert row is not None
        target = State(action, Status.IN_PROGRESS)
        if not RESOURCE.allows(rows.state_of(row), target):
            fresh = self.store.get_resource(row.id)
            held = fresh.engine_id not in (None, self.services.engine_id)
            if fresh.atomic_key != row.atomic_key or held:
                # The row read when the traversal started has moved on since, or another
                # engine (perhaps a dead one) still holds it: start again once it is free.
                self._lock_lost()
                return False
            check_transition(RESOURCE, rows.state_of(row), target, resource=row.name)
        engine = self.services.engine_id
        try:
            self.row = rows.lock(
                self.store,
                row,
                engine,
                action,
                changes,
                properties=properties,
                shown=shown if shown is not None else self.shown,
                quiet=quiet,
            )
        except LockConflict:
            self._lock_lost()
            return False
        self.locked = True
        return True

    @property
    def shown(self) -> Props | None:
        """The properties this work's events show: those its action runs with."""
        return None if self.call is None else self.call.props

    def _publish_physical_id(self) -> None:
        """Store the physical id the plugin set while its action goes on, as Heat stores a
        resource's id as soon as it is known: a server's shows while it builds, and a
        template resource's child stack is found by it while the child is created (heatclient
        matches the resource's physical id with its ``nested`` link)."""
        row, call = self.row, self.call
        if not self.locked or row is None or call is None:
            return
        physical = node_rules.physical_change(call)
        if physical is KEEP or physical == row.physical_resource_id:
            return
        changes = ResourceChanges(physical_resource_id=physical)
        self.row = rows.hold(self.store, row, self.services.engine_id, changes)

    def _lock_lost(self) -> None:
        self.attempts += 1
        fresh = self.store.get_resource(self.check.node.version_id)
        holder = fresh.engine_id
        if holder is not None and holder != self.services.engine_id:
            if self.services.engine_alive(holder):
                self.row = fresh
                self._wait(Waiting.LOCK, None)
                return
            fresh = node_rules.release_dead(self.services, self.plan, fresh)
        elif self.attempts >= LOCK_ATTEMPTS:
            raise LockConflict(f"resource {fresh.name} keeps changing; could not lock it")
        self.row = fresh
        self._begin()

    def _wait(self, what: Waiting, seconds: float | None) -> None:
        if seconds is None:
            seconds = self.delay
            self.delay = min(self.delay * BACKOFF[1], BACKOFF[2])
        self.waiting = what
        self.timer = self.port.later(self.job, seconds)
