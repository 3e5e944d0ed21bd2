"""A bounded memory of facts about stored templates, kept for the engine's life.

Stored templates never change, so what an engine works out about a template id (which names it
retains, whether it maps any type) holds as long as the engine runs; only the most recently
used ids are kept, so an engine that sees many templates holds a bounded amount.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

_V = TypeVar("_V")


class RecentTemplates(Generic[_V]):
    """One fact per template id, for the ``limit`` most recently used ids (thread-safe)."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._known: collections.OrderedDict[int, _V] = collections.OrderedDict()
        self._lock = threading.Lock()

    def note(self, template_id: int, work_out: Callable[[], _V]) -> None:
        """Remember what ``work_out`` says of ``template_id``, unless it is known already."""
        with self._lock:
            if template_id in self._known:
                self._known.move_to_end(template_id)
                return
        value = work_out()
        with self._lock:
            self._remember(template_id, value)

    def peek(self, template_id: int) -> _V | None:
        """What is known of ``template_id`` (``None`` if nothing), leaving the order as is."""
        with self._lock:
            return self._known.get(template_id)

    def get(self, template_id: int, read: Callable[[], _V]) -> _V:
        """What is known of ``template_id``; ``read`` once if nothing is (under the lock: many
        callers asking at once wait for one read)."""
        with self._lock:
            if template_id in self._known:
                self._known.move_to_end(template_id)
                return self._known[template_id]
            value = read()
            self._remember(template_id, value)
            return value

    def _remember(self, template_id: int, value: _V) -> None:
        self._known[template_id] = value
        self._known.move_to_end(template_id)
        while len(self._known) > self._limit:
            self._known.popitem(last=False)
