"""Thread pools without futures, for the jobs of the per-resource hot path.

A pooled actor's loop is one long job that ends when the actor stops, and a plugin step reports
its outcome to its actor by message: nobody waits on either, so the bookkeeping of
:class:`concurrent.futures.ThreadPoolExecutor` (a future with its condition per job, a
semaphore, a work item, a Python-level queue) is pure cost on a path taken several times per
resource. :class:`JobThreads` hands a job to an idle thread through one C queue, or starts a
thread when none is idle and the pool is not full. A pool can start threads ahead of its
first jobs (:meth:`JobThreads.start_idle`): starting a thread makes its starter wait until it
runs, a cost better paid when the engine starts than while the first big stack converges.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Set

from thermik.actors.affinity import pin_this_thread

LOG = logging.getLogger(__name__)

_Job = Callable[[], object]


class JobThreads:
    """A pool of up to ``max_threads`` threads running submitted jobs to their end, on
    ``cpus`` if given (see :mod:`~thermik.actors.affinity`)."""

    def __init__(self, max_threads: int, name: str, cpus: Set[int] | None = None) -> None:
        self._max_threads = max_threads
        self._name = name
        self._cpus = cpus
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
                self._start_thread(self._threads)
        self._jobs.put(job)

    def start_idle(self, count: int) -> None:
        """Start threads until ``count`` are idle or the pool is full."""
        with self._lock:
            wanted = min(count - self._idle, self._max_threads - self._threads)
            if self._closed or wanted <= 0:
                return
            # Counted idle now: a job submitted meanwhile is taken by whichever thread
            # waits first.
            self._idle += wanted
            self._threads += wanted
            first = self._threads - wanted + 1
        for number in range(first, first + wanted):
            self._start_thread(number)

    def shutdown(self) -> None:
        """Refuse new jobs and let idle threads end; running jobs end by themselves."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, 0
        for _ in range(idle):
            self._jobs.put(None)

    def _start_thread(self, number: int) -> None:
        # Daemon threads, as nothing joins them: a job still running at exit is an actor loop
        # or a plugin step, both resumable from the store.
        threading.Thread(target=self._work, name=f"{self._name}_{number}", daemon=True).start()

    def _work(self) -> None:
        pin_this_thread(self._cpus)
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                job()
            except Exception:  # a job's bug must not take a shared thread with it
                LOG.exception("%s: a job failed", self._name)
            # An idle thread must not keep its last job (an actor and all it held) alive.
            del job
            with self._lock:
                if self._closed:
                    self._threads -= 1
                    return
                self._idle += 1
