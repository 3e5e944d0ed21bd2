"""An engine stopped mid-traversal: the next one resumes the stack, deadline included."""

from __future__ import annotations

import time

from tests.scenarios.runtime_harness import harness_on, res, wait_until
from thermik.engine.states import Action


def test_a_restarted_engine_finishes_what_the_stopped_one_started(sqlite_url: str) -> None:
    with harness_on(sqlite_url) as first:
        stack_id = first.stack({f"r{i}": res(wait_secs=0.3) for i in range(6)})
        first.converge(stack_id, Action.CREATE)
        wait_until(lambda: "CREATE_IN_PROGRESS" in first.states(stack_id).values())
    with harness_on(sqlite_url) as again:
        assert again.wait(stack_id) == "CREATE_COMPLETE", again.reason(stack_id)
        assert again.locked(stack_id) == []
        assert (
            again.store.list_traversal_arrivals(again.store.get_stack(stack_id).current_traversal)
            == []
        )


def test_the_deadline_counts_from_the_first_engines_start(sqlite_url: str) -> None:
    with harness_on(sqlite_url) as first:
        stack_id = first.stack({"quick": res(), "slow": res(wait_secs=60)})
        started = time.monotonic()
        first.converge(stack_id, Action.CREATE, timeout_seconds=3)
        wait_until(lambda: first.states(stack_id).get("slow") == "CREATE_IN_PROGRESS")
    with harness_on(sqlite_url) as again:
        assert again.wait(stack_id) == "CREATE_FAILED"
        assert again.reason(stack_id) == "Timed out"
        assert time.monotonic() - started < 15
        assert again.locked(stack_id) == []
        assert again.states(stack_id)["quick"] == "CREATE_COMPLETE"
