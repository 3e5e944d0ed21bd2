"""Values built once per key and kept, the least recently used dropped first.

The service keeps what it derives from stored templates, which never change (see
:mod:`~thermik.orchestration.descriptions` and :mod:`~thermik.orchestration.definitions`).
What is kept is bounded by the values' weights, not their number, so that one big value can
weigh what many small ones do.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

_K = TypeVar("_K", bound=Hashable)
_V = TypeVar("_V")


def _one(_: object) -> int:
    return 1


class Kept(Generic[_K, _V]):
    """Values by key, up to ``limit`` in weight (each value ``weight(value)``, at least the
    last one kept)."""

    def __init__(self, limit: int, weight: Callable[[_V], int] = _one) -> None:
        self._limit = limit
        self._weigh = weight
        self._known: OrderedDict[_K, _V] = OrderedDict()
        self._weight = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """How many values are kept."""
        with self._lock:
            return len(self._known)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._known

    def get(self, key: _K, build: Callable[[], _V]) -> _V:
        """The value of ``key``, built by ``build`` when not kept (what ``build`` raises is
        raised, and nothing is kept)."""
        with self._lock:
            if key in self._known:
                self._known.move_to_end(key)
                return self._known[key]
        # Built outside the lock: two callers may build the same one, never wait on another's.
        built = build()
        with self._lock:
            if key not in self._known:
                self._known[key] = built
                self._weight += self._weigh(built)
            while self._weight > self._limit and len(self._known) > 1:
                _, dropped = self._known.popitem(last=False)
                self._weight -= self._weigh(dropped)
        return built
