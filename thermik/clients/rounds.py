"""Waiting on many cloud things at once: one list call per round for all of them.

A stack of thirty servers waits for thirty servers to become ACTIVE. Asked one by one, that is
a ``GET /servers/{id}`` per server per poll; :class:`PollRounds` answers them all with one
list call per round (Nova's ``GET /servers/detail?tags-any=...``, by the creation tags the
servers carry): the polls of one traversal are aligned on a shared grid of rounds
(:meth:`PollRounds.align`), the first poll of a round lists every thing being waited on, and
the others of that round read its answer.

A thing the list does not show (a server made without the tag, or not listed yet) is
answered ``None``: the caller then fetches it alone, as it would without rounds.
"""

from __future__ import annotations

import concurrent.futures
import math
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from openstack.connection import Connection

#: ``list_many(tags) -> {tag: thing}``: one cloud call for the things carrying ``tags``.
ListMany = Callable[[list[str]], Mapping[str, Any]]
#: A round's start, its tags, and its end.
_Round = tuple[float, frozenset[str], "concurrent.futures.Future[None]"]

#: Seconds between two rounds.
GRID = 1.0
#: A thing asked for more than this long ago is no longer listed (its waiter went away).
FORGET_AFTER = 30.0
#: Most tags one list call asks for (the query string stays well under URL limits).
MAX_TAGS = 40


class PollRounds:
    """The things of one traversal being waited on, listed together once per round."""

    def __init__(
        self,
        list_many: ListMany,
        *,
        grid: float = GRID,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._list_many = list_many
        self._grid = grid
        self._clock = clock
        self._lock = threading.Lock()
        #: tag -> when it was last asked for.
        self._waited: dict[str, float] = {}
        #: tag -> (when the list that saw it started, what it saw).
        self._seen: dict[str, tuple[float, Any]] = {}
        #: The list call under way, its start and its tags.
        self._running: _Round | None = None

    def align(self, wait: float) -> float:
        """``wait`` lengthened to end on the next round (so that polls meet)."""
        now = self._clock()
        return math.ceil((now + wait) / self._grid) * self._grid - now

    def get(self, tag: str) -> Any | None:
        """The thing carrying ``tag`` as a list of this round saw it, or ``None`` when the
        list did not show it or failed (the caller's own fetch then says why)."""
        now = self._clock()
        with self._lock:
            self._waited[tag] = now
            seen = self._seen.get(tag)
            if seen is not None and seen[0] >= now - self._grid / 2:
                return seen[1]
            running = self._running
            if running is None or tag not in running[1]:
                running = self._start(now)
                mine = True
            else:
                mine = False
        started, _, future = running
        if mine:
            self._run(running)
        if future.exception() is not None:
            return None
        with self._lock:
            seen = self._seen.get(tag)
        return seen[1] if seen is not None and seen[0] >= started else None

    def forget(self, tag: str) -> None:
        """Stop listing the thing carrying ``tag`` (its wait is over)."""
        with self._lock:
            self._forget(tag)

    def _start(self, now: float) -> _Round:
        for tag, asked in list(self._waited.items()):
            if asked < now - FORGET_AFTER:
                self._forget(tag)
        wanted = sorted(self._waited, key=lambda t: -self._waited[t])[:MAX_TAGS]
        self._running = (now, frozenset(wanted), concurrent.futures.Future())
        return self._running

    def _forget(self, tag: str) -> None:
        self._waited.pop(tag, None)
        self._seen.pop(tag, None)

    def _run(self, running: _Round) -> None:
        _, tags, future = running
        try:
            found = self._list_many(sorted(tags))
        except Exception as error:  # a failed round: each waiter fetches its own
            self._finish(running, {})
            future.set_exception(error)
            return
        self._finish(running, found)
        future.set_result(None)

    def _finish(
        self,
        running: _Round,
        found: Mapping[str, Any],
    ) -> None:
        started = running[0]
        with self._lock:
            for tag, thing in found.items():
                if tag in self._waited:
                    self._seen[tag] = (started, thing)
            if self._running is running:
                self._running = None


def by_tag(things: Iterable[Any], tags: Iterable[str]) -> dict[str, Any]:
    """``things`` (with a ``tags`` list each) keyed by which of ``tags`` they carry."""
    wanted = set(tags)
    out: dict[str, Any] = {}
    for thing in things:
        for tag in getattr(thing, "tags", None) or ():
            if tag in wanted:
                out[tag] = thing
    return out


def _servers(conn: Connection, tags: list[str]) -> dict[str, Any]:
    return by_tag(conn.compute.servers(any_tags=",".join(tags)), tags)


#: What can be waited on in rounds: kind -> (service, ``(connection, tags) -> {tag: thing}``).
LISTINGS: Mapping[str, tuple[str, Callable[[Connection, list[str]], Mapping[str, Any]]]] = {
    "nova.server": ("nova", _servers),
}
