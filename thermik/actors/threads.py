"""The threads actor loops run on: reused, made on demand, no futures.

A pooled actor's loop is one long job that ends when the actor stops; nobody waits for it, so
the bookkeeping of :class:`concurrent.futures.ThreadPoolExecutor` (a future with its condition
per job, a semaphore, a work item) is pure cost on the path that starts an actor for every
resource. :class:`ActorThreads` hands a job to an idle thread through one C queue, or starts a
thread when none is idle.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

LOG = logging.getLogger(__name__)

_Job = Callable[[], object]


class ActorThreads:
    """A pool of up to ``max_threads`` threads running submitted jobs to their end."""

    def __init__(self, max_threads: int, name: str) -> None:
        self._max_threads = max_threads
        self._name = name
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        #: Threads waiting for a job that no submit has claimed yet.
        self._idle = 0
        self._threads = 0
        self._closed = False

    def submit(self, job: _Job) -> None:
        """Run ``job`` on an idle thread, or on a new one.

        With every thread busy, the job waits for the first one to finish its own.

        Raises:
            RuntimeError: the pool is shut down.
        """
        with self._lock:
            if self._closed:
                raise RuntimeError(f"{self._name}: cannot run a job after shutdown")
            if self._idle:
                self._idle -= 1
            elif self._threads < self._max_threads:
                self._threads += 1
                threading.Thread(
                    target=self._work, name=f"{self._name}_{self._threads}", daemon=True
                ).start()
        self._jobs.put(job)

    def shutdown(self) -> None:
        """Refuse new jobs and let idle threads end; running jobs end by themselves."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, 0
        for _ in range(idle):
            self._jobs.put(None)

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                job()
            except Exception:  # a job's bug must not take a shared thread with it
                LOG.exception("%s: a job failed", self._name)
            with self._lock:
                if self._closed:
                    self._threads -= 1
                    return
                self._idle += 1
