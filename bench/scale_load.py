"""The load of ``scale_bench.py``: closed-loop clients creating stacks through the REST API and
waiting for each to settle, a probe listing the stacks meanwhile, and what they measured."""

from __future__ import annotations

import dataclasses
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

from tests.functional.rpc.cluster import Api

#: What a create ends in; anything else is still going.
SETTLED = ("CREATE_COMPLETE", "CREATE_FAILED")


def stack_template(resources: int, wait: float) -> dict[str, Any]:
    """``resources`` independent test resources whose create takes ``wait`` seconds."""
    resource = {
        "type": "OS::Heat::TestResource",
        "properties": {"value": "v", "action_wait_secs": {"create": wait, "delete": 0}},
    }
    return {
        "heat_template_version": "2018-08-31",
        "resources": {f"r{n:03d}": resource for n in range(resources)},
    }


def quantile(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (nearest rank); NaN when there are none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


@dataclasses.dataclass
class Results:
    """What the clients and the probe saw during one configuration's run."""

    #: Stack name -> (its POST, the first poll showing CREATE_COMPLETE), monotonic seconds.
    completed: dict[str, tuple[float, float]] = dataclasses.field(default_factory=dict)
    #: Stack names whose POST was not answered 201 (with the answer).
    refused: dict[str, str] = dataclasses.field(default_factory=dict)
    #: Stack name -> the state it settled in or was left in (not CREATE_COMPLETE).
    unfinished: dict[str, str] = dataclasses.field(default_factory=dict)
    #: Stack name -> id of every stack accepted.
    ids: dict[str, str] = dataclasses.field(default_factory=dict)
    #: Seconds per GET /stacks of the probe.
    probe: list[float] = dataclasses.field(default_factory=list)
    probe_errors: int = 0
    started: float = 0.0
    ended: float = 0.0

    @property
    def latencies(self) -> list[float]:
        """Seconds from the POST to CREATE_COMPLETE, of every completed stack."""
        return [end - start for start, end in self.completed.values()]

    def stacks_per_minute(self) -> float:
        """Completed stacks per minute between the first POST and the last completion."""
        span = self.ended - self.started
        return len(self.completed) * 60 / span if span > 0 else float("nan")

    def running(self) -> dict[str, str]:
        """Name -> id of the stacks accepted and not settled yet."""
        return {
            name: stack_id
            for name, stack_id in self.ids.items()
            if name not in self.completed and name not in self.unfinished
        }


class Load:
    """``clients`` threads creating the stacks ``names`` one at a time each, and the probe."""

    def __init__(self, api: Api, template: dict[str, Any], args: Any) -> None:
        self.api = api
        self.template = template
        self.args = args
        self.results = Results()
        self.lock = threading.Lock()
        self.next = 0
        self.requested = 0
        #: Called once, in a thread, when the ``trigger_at``-th create request is answered.
        self.trigger: Callable[[], None] | None = None
        self.trigger_at = 0
        self.triggered: threading.Thread | None = None
        self.done = threading.Event()

    def run(self) -> Results:
        """Run every client to the end, the probe meanwhile; the results."""
        # Daemons: an interrupted run (Ctrl-C, SIGTERM) ends without waiting for them.
        clients = [
            threading.Thread(target=self._client, daemon=True) for _ in range(self.args.clients)
        ]
        probe = threading.Thread(target=self._probe, daemon=True)
        self.results.started = time.monotonic()
        probe.start()
        for thread in clients:
            thread.start()
        for thread in clients:
            thread.join()
        self.results.ended = time.monotonic()
        if self.triggered is not None:
            self.triggered.join()
        self.done.set()
        probe.join()
        return self.results

    def _take(self) -> str | None:
        with self.lock:
            if self.next >= self.args.stacks:
                return None
            self.next += 1
            return f"s{self.next:04d}"

    def _client(self) -> None:
        while (name := self._take()) is not None:
            started = time.monotonic()
            stack_id = self._create(name)
            self._count_request()
            if stack_id is None:
                continue
            state = self._settle(name, stack_id)
            with self.lock:
                if state == "CREATE_COMPLETE":
                    self.results.completed[name] = (started, time.monotonic())
                else:
                    self.results.unfinished[name] = state

    def _create(self, name: str) -> str | None:
        body = {"stack_name": name, "template": self.template, "disable_rollback": True}
        try:
            status, answer = self.api.request("POST", "/stacks", body)
        except OSError as error:  # no answer at all (timeout, reset)
            status, answer = 0, str(error)
        with self.lock:
            if status != 201:
                self.results.refused[name] = f"{status} {answer}"[:300]
                return None
            self.results.ids[name] = str(answer["stack"]["id"])
            return self.results.ids[name]

    def _count_request(self) -> None:
        with self.lock:
            self.requested += 1
            fire = self.trigger is not None and self.requested == self.trigger_at
        if fire and self.trigger is not None:
            # In a thread of its own, so that this client's own stack is timed as the others.
            self.triggered = threading.Thread(target=self.trigger)
            self.triggered.start()

    def _settle(self, name: str, stack_id: str) -> str:
        """The state the stack settles in (with its reason unless it completed), or the last
        one seen when ``--timeout`` passed."""
        deadline = time.monotonic() + self.args.timeout
        state = "no answer"
        while time.monotonic() < deadline:
            time.sleep(self.args.poll)
            try:
                status, answer = self.api.request("GET", f"/stacks/{name}/{stack_id}")
            except OSError:  # a poll without an answer: poll again
                continue
            if status == 200:
                state = str(answer["stack"]["stack_status"])
                if state == "CREATE_COMPLETE":
                    return state
                if state in SETTLED:
                    return f"{state}: {answer['stack'].get('stack_status_reason', '')}"[:300]
        return f"{state} after {self.args.timeout:.0f} s"

    def _probe(self) -> None:
        while not self.done.wait(self.args.probe_interval):
            started = time.monotonic()
            try:
                status, _ = self.api.request("GET", "/stacks")
            except OSError:
                status = 0
            if status == 200:
                self.results.probe.append(time.monotonic() - started)
            else:
                self.results.probe_errors += 1


def summary(results: Results) -> dict[str, Any]:
    """The figures of one run, as the report prints them."""
    return {
        "completed": len(results.completed),
        "stacks_per_minute": round(results.stacks_per_minute(), 1),
        "create_p50_s": round(quantile(results.latencies, 0.5), 2),
        "create_p99_s": round(quantile(results.latencies, 0.99), 2),
        "api_p99_ms": round(quantile(results.probe, 0.99) * 1000, 1),
        "api_median_ms": round(statistics.median(results.probe) * 1000, 1)
        if results.probe
        else float("nan"),
        "probes": len(results.probe),
        "probe_errors": results.probe_errors,
        "refused": len(results.refused),
        "unfinished": len(results.unfinished),
        "wall_s": round(results.ended - results.started, 1),
    }
