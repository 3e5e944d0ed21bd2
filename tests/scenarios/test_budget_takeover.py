"""A stored stack whose template exceeds the function budget, taken over by another engine.

Issue 14: a stack stored with ``list_join`` nested 28 deep blew up again every time an engine
took it over. The engine that resumes it now fails the resource with the reason and the
stack with it, within bounded memory; the next engine finds it FAILED and leaves it alone.
The engines run under an address-space cap so that a regression fails instead of
exhausting the machine.
"""

from __future__ import annotations

from typing import Any

from tests.memory_cap import MIB, address_space_capped
from tests.scenarios.runtime_harness import harness_on, res, wait_until
from thermik.engine.states import Action


def nested_join(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = {"list_join": ["", [[value]]]}
    return value


def test_a_stored_bomb_fails_cleanly_when_another_engine_takes_the_stack_over(
    sqlite_url: str,
) -> None:
    resources = {
        "slow": res(wait_secs=0.6),
        "bomb": {**res(nested_join(28)), "depends_on": "slow"},
    }
    # Each engine maps about 1 GiB of thread stacks and arenas, barely touched.
    with address_space_capped(3072 * MIB):
        with harness_on(sqlite_url) as first:
            stack_id = first.stack(resources)
            first.converge(stack_id, Action.CREATE)
            wait_until(lambda: first.states(stack_id).get("slow") == "CREATE_IN_PROGRESS")
        with harness_on(sqlite_url) as again:
            assert again.wait(stack_id) == "CREATE_FAILED"
            assert again.states(stack_id) == {
                "slow": "CREATE_COMPLETE",
                "bomb": "CREATE_FAILED",
            }
            reason = again.live(stack_id)["bomb"].status_reason
            assert "resources.bomb.properties.value.list_join" in reason, reason
            assert "max_function_value_size" in reason
            assert "bomb" in again.reason(stack_id)
            assert again.locked(stack_id) == []
        with harness_on(sqlite_url) as third:
            assert third.states(stack_id)["bomb"] == "CREATE_FAILED"
            assert third.store.get_stack(stack_id).status == "FAILED"
