"""``--wait``: follow a stack operation live, from the events as the engine stores them.

Every new event is printed as ``openstack stack event list`` logs it, and a progress bar counts
the resources that finished (``done/total``); the bar redraws in place on a terminal and is a
new line elsewhere. Output goes to stderr so that ``-f json`` stdout stays one document. The
wait ends when the stack settles; Ctrl-C stops waiting (the local engine daemon goes on with
the stack; an engine running in the command stops with it, and a later command resumes it).
A wait that sees the stack deleted by another command fails, saying so.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from typing import TextIO

from thermik.api.boundary import (
    EventQuery,
    EventView,
    OrchestrationService,
    RequestContext,
    SortDir,
    StackIdentity,
    StackView,
)
from thermik.api.responses import isotime

STACK_EVENT_TYPE = "OS::Heat::Stack"
_BAR_WIDTH = 30


class OperationFailed(Exception):
    """The operation a command waited for ended FAILED (the message says why)."""


def event_line(event: EventView) -> str:
    """An event as ``openstack stack event list`` logs it."""
    when = isotime(event.event_time) or ""
    return f"{when} [{event.resource_name}]: {event.action}_{event.status}  {event.status_reason}"


def bar(done: int, total: int) -> str:
    """``[#####.....] 3/10 resources``."""
    total = max(total, done)
    filled = _BAR_WIDTH * min(done, total) // total if total else _BAR_WIDTH
    return f"[{'#' * filled}{'.' * (_BAR_WIDTH - filled)}] {done}/{total} resources"


def newest_event(
    service: OrchestrationService, ctx: RequestContext, stack: StackIdentity
) -> str | None:
    """The id of the stack's newest event: waiting starts after it."""
    found = service.list_events(ctx, stack, EventQuery(sort_dir=SortDir.DESC, limit=1))
    return found[0].id if found else None


@dataclasses.dataclass
class Watch:
    """One wait for a stack operation; see the module docstring."""

    service: OrchestrationService
    ctx: RequestContext
    stack: StackIdentity
    total: int
    marker: str | None = None
    out: TextIO = dataclasses.field(default_factory=lambda: sys.stderr)
    poll: float = 0.2
    #: Whether ending rolled back is what the operation asked for (a cancel with rollback);
    #: otherwise a rollback means the operation failed, as the openstack client reports it.
    rollback_succeeds: bool = False
    #: Whether the engine goes on without this command (the local daemon) or stops with it.
    engine_goes_on: bool = False
    done: set[str] = dataclasses.field(default_factory=set)
    _shown: str = ""
    _failed: EventView | None = None
    #: The action the stack was doing when the wait began (a later DELETE is someone else's).
    _began: str | None = None

    @property
    def _tty(self) -> bool:
        return self.out.isatty()

    def _write(self, text: str) -> None:
        if self._tty and self._shown:
            self.out.write("\r\033[K")
        self.out.write(text + "\n")
        if self._tty and self._shown:
            self.out.write(self._shown)
        self.out.flush()

    def _progress(self, done: int | None = None) -> None:
        line = bar(len(self.done) if done is None else done, self.total)
        if line == self._shown.strip():
            return
        if self._tty:
            self.out.write("\r\033[K" + line)
            self._shown = line
        else:
            self.out.write(line + "\n")
            self._shown = line + "\n"
        self.out.flush()

    def _events(self) -> int:
        found = self.service.list_events(
            self.ctx, self.stack, EventQuery(marker=self.marker, sort_dir=SortDir.ASC)
        )
        for event in found:
            self.marker = event.id
            self._write(event_line(event))
            if event.resource_type == STACK_EVENT_TYPE:
                if event.status == "FAILED" and self._failed is None:
                    self._failed = event
            elif event.status != "IN_PROGRESS":
                self.done.add(event.resource_name)
        return len(found)

    def _finish(self, view: StackView) -> StackView:
        # Resources an update leaves unchanged report nothing; a complete stack has them all.
        complete = view.status == "COMPLETE"
        self._progress(max(self.total, len(self.done)) if complete else None)
        if self._tty:
            self.out.write("\n")
            self.out.flush()
        rolled_back = view.action == "ROLLBACK" and not self.rollback_succeeds
        if view.status == "FAILED" or rolled_back:
            raise OperationFailed(self._failure(view))
        if view.action == "DELETE" and self._began not in (None, "DELETE"):
            raise OperationFailed(
                f"Stack {view.identity.name} {self._began} did not end: the stack was "
                f"deleted meanwhile (DELETE_{view.status}), by another command"
            )
        return view

    def _failure(self, view: StackView) -> str:
        """Why the operation failed: its own failure first, then how the rollback ended."""
        name, state = view.identity.name, f"{view.action}_{view.status}"
        first = self._failed
        if view.action == "ROLLBACK" and first is not None:
            cause = f"{first.action}_{first.status}"
            reason = f": {first.status_reason}" if first.status_reason else ""
            return f"Stack {name} {cause}{reason} (then {state})"
        reason = f": {view.status_reason}" if view.status_reason else ""
        return f"Stack {name} {state}{reason}"

    def run(self) -> StackView:
        """Follow the operation until the stack settles; its final view."""
        try:
            while True:
                new = self._events()
                view = self.service.show_stack(self.ctx, self.stack, resolve_outputs=False)
                if self._began is None:
                    self._began = view.action
                if view.status != "IN_PROGRESS" and not new:
                    return self._finish(view)
                self._progress()
                time.sleep(self.poll)
        except KeyboardInterrupt:
            if self.engine_goes_on:
                self.out.write(
                    f"\nInterrupted: stopped waiting; the engine goes on with stack "
                    f"{self.stack.name}.\n"
                )
            else:
                self.out.write(
                    f"\nInterrupted: stack {self.stack.name} stays as the engine recorded it; "
                    "the engine stops now and a later thermik command resumes it.\n"
                )
            raise
