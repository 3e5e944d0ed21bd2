"""The ResourceActor: one per resource version with work, gone when the work is done.

It serialises its version's nodes (a node of a newer traversal waits for the running one to end,
in arrival order) and its signals (one at a time, beside a running node: a resource waiting
for a signal must be able to receive it; but not while the node's plugin call runs). Plugin
code runs on the shared executor, waits are timers; the actor thread itself only reads and
writes the store, and runs the actions of store-only plugins that return at once (see
``ResourcePlugin.runs_inline``: handing those to the executor and back cost more than they do).

Failure semantics: a node's errors are the node's failure (see :mod:`thermik.actors.node`); an
unexpected exception while the actor handles a message (a bug in the shell or in a plugin
method it calls on its own thread) is logged with its traceback, fails the running node (its
reason names the resource, without the traceback) and the running signal, and the actor
carries on: pykka would stop it, leaving a dead actor in the table and its stack waiting
forever (pykka has no supervision: this is it). Replies for a stack whose actor is gone are
dropped: that traversal is over.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import itertools
import logging
import time
from collections.abc import Callable
from typing import Any

import pykka

from thermik.actors.node import NodeWork
from thermik.actors.node_state import Waiting
from thermik.actors.plan import TraversalPlan
from thermik.actors.services import Services
from thermik.actors.signals import SignalWork
from thermik.actors.table import PooledActor
from thermik.actors.timers import TimerHandle
from thermik.engine.messages import (
    CancelResource,
    Event,
    PollDue,
    ResourceFailed,
    RunNode,
    SignalRequest,
    StepFinished,
)
from thermik.errors import EngineStopping, Failure, PluginError, ThermikError

LOG = logging.getLogger(__name__)
#: How long a clean stop waits for a running plugin step (the runtime waits 5 s per actor).
STOP_STEP_WAIT = 3.0
#: How often a clean stop looks whether the running plugin step ended.
STOP_STEP_POLL = 0.01


@dataclasses.dataclass(frozen=True, slots=True)
class Wake:
    """Something the running action waits for may have happened: poll it now."""


class ResourceActor(PooledActor):
    """Converges the nodes of one resource version and handles its signals."""

    def __init__(self, services: Services, version_id: int) -> None:
        super().__init__(services.threads)
        self.services = services
        self.version_id = version_id
        self.pending: collections.deque[RunNode[TraversalPlan]] = collections.deque()
        self.work: NodeWork | None = None
        self.signals: collections.deque[SignalRequest] = collections.deque()
        self.signal: SignalWork | None = None
        self._jobs = itertools.count(1)
        #: Whether a step was submitted, and its outcome once it ran (a clean stop waits for
        #: it to know where its action is).
        self.stepping = False
        self.step: StepFinished[Any] | None = None

    # -- the port the works use -------------------------------------------------------------

    def submit(self, job: int, step: Callable[[], object], *, here: bool = False) -> None:
        """Run ``step`` on the executor (``here``: on this thread, for a step that returns at
        once) and report back ``StepFinished(job)``, a message like any other."""
        self.stepping, self.step = True, None
        if here:
            self._run_step(job, step)
        else:
            self.services.executor.submit(lambda: self._run_step(job, step))

    def _run_step(self, job: int, step: Callable[[], object]) -> None:
        try:
            outcome = StepFinished(job, step())
        except Exception as error:  # plugin bugs are failures of the node, not of us
            outcome = StepFinished(job, None, Failure.from_exception(error))
        self.step = outcome
        with contextlib.suppress(pykka.ActorDeadError):
            self.actor_ref.tell(outcome)

    def later(self, job: int, seconds: float, *, grace: bool = False) -> TimerHandle:
        """Tell ``PollDue(job, grace)`` to this actor after ``seconds``."""
        return self.services.timers.tell_later(seconds, self.actor_ref, PollDue(job, grace))

    def reply(self, stack_id: str, event: Event) -> None:
        """Tell the stack actor (dropped when the stack has none: its traversal is over)."""
        self.services.stacks.tell_existing(stack_id, event)

    def finished(self, job: int) -> None:
        """A node or signal work ended."""
        if self.work is not None and self.work.job == job:
            self.work = None
        if self.signal is not None and self.signal.job == job:
            self.signal = None
            if self.work is not None:
                self.work.poll_now()

    # -- messages -----------------------------------------------------------------------------

    def on_receive(self, message: Any) -> None:
        try:
            self._receive(message)
        except Exception as error:  # a bug: see the module's failure semantics
            LOG.exception(
                "resource version %s: unexpected error handling %s",
                self.version_id,
                type(message).__name__,
            )
            self._recover(error)

    def _receive(self, message: Any) -> None:
        if isinstance(message, RunNode):
            self.pending.append(message)
        elif isinstance(message, StepFinished):
            self._route(message.job, lambda work: work.on_step(message))
        elif isinstance(message, PollDue):
            self._route(message.job, lambda work: work.on_timer(message.grace))
        elif isinstance(message, CancelResource):
            self._cancel(message)
        elif isinstance(message, SignalRequest):
            self.signals.append(message)
        elif isinstance(message, Wake) and self.work is not None:
            self.work.poll_now()
        self._advance()

    def _route(self, job: int, handle: Callable[[Any], None]) -> None:
        if self.work is not None and self.work.job == job:
            handle(self.work)
        elif self.signal is not None and self.signal.job == job:
            handle(self.signal)

    def _cancel(self, message: CancelResource) -> None:
        work = self.work
        if (
            work is not None
            and work.check.node == message.node
            and work.check.traversal_id == message.traversal_id
        ):
            work.on_cancel(message.grace_seconds, message.why)
            return
        for run in list(self.pending):
            check = run.check
            if check.node == message.node and check.traversal_id == message.traversal_id:
                self.pending.remove(run)
                failure = Failure.from_exception(PluginError("cancelled", resource=check.name))
                self.reply(
                    run.context.stack.id, ResourceFailed(check.node, check.traversal_id, failure)
                )

    def _advance(self) -> None:
        while self.work is None and self.pending:
            self.work = NodeWork(self, self.services, self.pending.popleft(), next(self._jobs))
            self.work.begin()
        while self.signal is None and self.signals and not self._node_stepping():
            self.signal = SignalWork(self, self.services, self.signals.popleft(), next(self._jobs))
            self.signal.begin()
        if self.work is None and self.signal is None and not self.pending and not self.signals:
            self.services.resources.retire(self.version_id, self)

    def _node_stepping(self) -> bool:
        """Whether the node's plugin call runs now. A signal waits until it returned: it then
        finds what the call stored (a deployment signalled as soon as its row is
        ``CREATE_IN_PROGRESS`` finds its deployment rather than "has not started"). Steps never
        wait for a signal (waits are polls), so this wait always ends."""
        return self.work is not None and self.work.waiting is Waiting.STEP

    def on_stop(self) -> None:
        """The engine stops: the running action stays resumable (see ``suspension``); the
        senders of signals not yet answered learn that the engine stopped rather than wait."""
        self._refuse_signals()
        work = self.work
        if work is None:
            return
        step = self._last_step()
        try:
            work.suspend(step if step is not None and step.job == work.job else None)
        except ThermikError as error:
            LOG.warning("resource version %s: left for recovery: %s", self.version_id, error)

    def _refuse_signals(self) -> None:
        requests = [*([] if self.signal is None else [self.signal.request]), *self.signals]
        self.signals.clear()
        for request in requests:
            if not request.answer.done():
                request.answer.set_exception(EngineStopping("the engine stopped"))

    def _last_step(self) -> StepFinished[Any] | None:
        """The outcome of the last step, waiting up to ``STOP_STEP_WAIT`` for a running one
        (the engine is stopping: a short poll costs nothing on the hot path, where a future
        per step would)."""
        deadline = time.monotonic() + STOP_STEP_WAIT
        while self.stepping and self.step is None and time.monotonic() < deadline:
            time.sleep(STOP_STEP_POLL)
        return self.step

    def _recover(self, error: Exception) -> None:
        """Fail what runs after an unexpected ``error``, then go on with what waits (a next
        node that fails to start is failed the same way). Recovering must not raise in turn:
        the actor would die."""
        self._fail_running(Failure.from_exception(error))
        for _ in range(len(self.pending) + len(self.signals) + 1):
            try:
                self._advance()
                return
            except Exception as again:
                LOG.exception("resource version %s: unexpected error", self.version_id)
                self._fail_running(Failure.from_exception(again))

    def _fail_running(self, failure: Failure) -> None:
        work, self.work = self.work, None
        signal, self.signal = self.signal, None
        if work is not None and not work.over:
            try:
                work.fail(failure)
            except Exception:  # the row could not be settled: still tell the stack
                LOG.exception("resource version %s: could not settle its row", self.version_id)
                work.report_only(failure)
        if signal is not None:
            signal.fail(PluginError(failure.detail))
