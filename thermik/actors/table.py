"""Actors that exist only while they have work: started on demand, gone when idle.

A stack actor lives while its stack has a traversal; a resource actor while its version has a
node to converge or a signal to handle. An :class:`ActorTable` is the runtime's index of the
live actors of one kind. A message for a key starts its actor if needed; an idle actor leaves
the table with :meth:`ActorTable.retire`, which succeeds only while its inbox is empty, under
the same lock that enqueues messages, so nothing sent through the table is ever lost to an
actor that is stopping.

Actors run on :class:`PooledActor` threads: a pykka actor is one thread for its whole life, and
starting an OS thread per resource would cost more than converging it; a pooled actor's loop
runs on a reused thread of a pool instead (pykka's documented hook for new actor kinds).

A pooled actor is started and stopped once per resource and operation, so it also leaves out
what pykka does per actor that the runtime has no use for: it is not entered in pykka's global
``ActorRegistry`` (an :class:`ActorTable` indexes it and the runtime stops it; the registry's
unregister is a scan of every live actor) and its URN comes from a counter under one random
prefix instead of a fresh ``uuid4`` (a system call) each.

pykka logs every exception an asked actor answers with, traceback and all, at INFO. A
:class:`~thermik.errors.ThermikError` is an answer the asker handles (the API turns a
``LeaseConflict`` into its 409 and its one log line), so those records are dropped.
"""

from __future__ import annotations

import itertools
import logging
import queue
import sys
import threading
import uuid
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, Generic, Protocol, Self, TypeVar

import pykka

from thermik.errors import ThermikError

if TYPE_CHECKING:
    from pykka._actor import ActorInbox
    from pykka._envelope import Envelope

_Key = TypeVar("_Key", bound=Hashable)


#: Prefix of pooled actors' URNs: unique per process, so URNs stay unique across engines.
_URN_PREFIX = f"urn:thermik-actor:{uuid.uuid4().hex}:"
_URN_NUMBERS = itertools.count(1)


def _not_an_answer(record: logging.LogRecord) -> bool:
    """False for pykka's record of a deliberate error returned to an asker."""
    error = record.exc_info[1] if record.exc_info else None
    returned = str(record.msg).startswith("Exception returned")
    return not (returned and isinstance(error, ThermikError))


logging.getLogger("pykka").addFilter(_not_an_answer)


class ThreadPool(Protocol):
    """Where a pooled actor's loop runs (:class:`~thermik.actors.threads.JobThreads`, or
    any executor)."""

    def submit(self, fn: Callable[[], Any], /) -> object:
        """Run ``fn`` on a thread of the pool."""


class PooledActor(pykka.ThreadingActor):
    """A ``ThreadingActor`` whose loop runs on a thread of a shared pool, not a new thread,
    with a lighter inbox (``queue.SimpleQueue``: the C queue, no task accounting)."""

    def __init__(self, threads: ThreadPool) -> None:
        # What ``Actor.__init__`` sets, with a counter URN instead of a uuid4.
        self.actor_urn = f"{_URN_PREFIX}{next(_URN_NUMBERS)}"
        self.actor_inbox = self._create_actor_inbox()
        self.actor_stopped = threading.Event()
        self._actor_ref = pykka.ActorRef(self)
        self._threads = threads

    @classmethod
    def start(cls, *args: Any, **kwargs: Any) -> pykka.ActorRef[Self]:
        """Start the actor (``Actor.start`` without the registry and its debug line)."""
        actor = cls(*args, **kwargs)
        actor._start_actor_loop()
        return actor.actor_ref

    def _stop(self) -> None:
        # ``Actor._stop`` without the registry: what it does besides is this.
        self.actor_stopped.set()
        try:
            self.on_stop()
        except Exception:  # pykka logs a failing on_stop and carries on
            self._handle_failure(*sys.exc_info())

    @staticmethod
    def _create_actor_inbox() -> ActorInbox:
        inbox: queue.SimpleQueue[Envelope[Any]] = queue.SimpleQueue()
        return inbox

    def _start_actor_loop(self) -> None:
        self._threads.submit(self._actor_loop)


class ActorTable(Generic[_Key]):
    """The live actors of one kind, by key."""

    def __init__(self, start: Callable[[_Key], pykka.ActorRef[Any]]) -> None:
        self._start = start
        self._actors: dict[_Key, pykka.ActorRef[Any]] = {}
        self._lock = threading.Lock()
        self._closed = False

    def tell(self, key: _Key, message: Any) -> None:
        """Tell ``message`` to the actor of ``key``, starting it if needed."""
        with self._lock:
            self._get(key).tell(message)

    def ask(self, key: _Key, message: Any) -> pykka.Future[Any]:
        """Ask the actor of ``key`` (starting it if needed); the caller waits on the future."""
        with self._lock:
            return self._get(key).ask(message, block=False)

    def tell_existing(self, key: _Key, message: Any) -> bool:
        """Tell ``message`` only if the actor of ``key`` is live; whether it was told."""
        with self._lock:
            actor = self._actors.get(key)
            if actor is None:
                return False
            actor.tell(message)
            return True

    def retire(self, key: _Key, actor: pykka.Actor) -> bool:
        """Remove and stop ``actor`` if its inbox is empty; whether it was retired.

        Called by the actor itself when it has nothing left to do. A ``False`` answer means a
        message arrived meanwhile: the actor must handle it and try again later.
        """
        with self._lock:
            if not actor.actor_inbox.empty():
                return False
            if self._actors.get(key) is actor.actor_ref:
                del self._actors[key]
            actor.stop()
            return True

    @property
    def closed(self) -> bool:
        """Whether the table refuses new actors (the runtime is stopping)."""
        with self._lock:
            return self._closed

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._actors

    def live(self) -> list[_Key]:
        """The keys of the live actors (a snapshot)."""
        with self._lock:
            return list(self._actors)

    def __len__(self) -> int:
        with self._lock:
            return len(self._actors)

    def close(self) -> list[pykka.ActorRef[Any]]:
        """Refuse new actors and hand back the live ones (to be stopped by the caller)."""
        with self._lock:
            self._closed = True
            actors = list(self._actors.values())
            self._actors.clear()
            return actors

    def _get(self, key: _Key) -> pykka.ActorRef[Any]:
        actor = self._actors.get(key)
        if actor is None:
            if self._closed:
                raise pykka.ActorDeadError("the engine runtime is stopped")
            actor = self._start(key)
            self._actors[key] = actor
        return actor
