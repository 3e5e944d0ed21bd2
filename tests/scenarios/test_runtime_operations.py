"""Check, suspend, resume, snapshot, abandon and adopt through the actor runtime."""

from __future__ import annotations

from tests.scenarios.runtime_harness import Harness, res
from thermik.engine.states import Action

RESOURCES = {
    "a": res("one"),
    "b": {"type": "OS::Heat::TestResource", "properties": {"value": {"get_resource": "a"}}},
}


def test_check_observes_every_resource(harness: Harness) -> None:
    stack_id = harness.create(RESOURCES)
    assert harness.run(stack_id, Action.CHECK) == "CHECK_COMPLETE", harness.reason(stack_id)
    assert harness.states(stack_id) == {"a": "CHECK_COMPLETE", "b": "CHECK_COMPLETE"}
    assert harness.reason(stack_id) == "Stack CHECK completed successfully"


def test_check_reports_a_resource_that_is_not_there_and_carries_on(harness: Harness) -> None:
    stack_id = harness.stack({"ok": res(), "bad": res(fail=True)})
    assert harness.run(stack_id, Action.CREATE) == "CREATE_FAILED"
    assert harness.run(stack_id, Action.CHECK) == "CHECK_FAILED"
    assert harness.states(stack_id) == {"ok": "CHECK_COMPLETE", "bad": "CHECK_FAILED"}
    assert harness.reason(stack_id) == (
        "Resource CHECK failed: bad: Resource CHECK failed: "
        "Exception: resources.bad: Resource not created"
    )
    assert harness.live(stack_id)["bad"].status_reason == (
        "Exception: resources.bad: Resource not created"
    )


def test_suspend_then_resume(harness: Harness) -> None:
    stack_id = harness.create(RESOURCES)
    assert harness.run(stack_id, Action.SUSPEND) == "SUSPEND_COMPLETE", harness.reason(stack_id)
    assert harness.states(stack_id) == {"a": "SUSPEND_COMPLETE", "b": "SUSPEND_COMPLETE"}
    events = harness.events(stack_id)
    # Dependents are suspended first.
    assert events.index(("b", "SUSPEND", "COMPLETE", "state changed")) < events.index(
        ("a", "SUSPEND", "IN_PROGRESS", "state changed")
    )
    assert harness.run(stack_id, Action.RESUME) == "RESUME_COMPLETE", harness.reason(stack_id)
    assert harness.states(stack_id) == {"a": "RESUME_COMPLETE", "b": "RESUME_COMPLETE"}
    events = harness.events(stack_id)
    assert events.index(("a", "RESUME", "COMPLETE", "state changed")) < events.index(
        ("b", "RESUME", "IN_PROGRESS", "state changed")
    )


def test_snapshot_keeps_each_resources_data(harness: Harness) -> None:
    stack_id = harness.create(RESOURCES)
    snapshot = harness.store.create_snapshot(stack_id, "tenant", "snap")
    state = harness.run(stack_id, Action.SNAPSHOT, snapshot_id=snapshot.id)
    assert state == "SNAPSHOT_COMPLETE", harness.reason(stack_id)
    stored = harness.store.get_snapshot(snapshot.id)
    assert stored.status == "COMPLETE"
    assert stored.data is not None
    resources = stored.data["resources"]
    live = harness.live(stack_id)
    assert resources["a"]["resource_id"] == live["a"].physical_resource_id
    assert resources["a"]["resource_data"] == {"value": "one"}
    assert resources["b"]["resource_data"] == {"value": live["a"].physical_resource_id}
    assert set(stored.data["template"]["resources"]) == {"a", "b"}


def test_restore_converges_back_to_the_snapshot_template(harness: Harness) -> None:
    stack_id = harness.create(RESOURCES)
    snapshot = harness.store.create_snapshot(stack_id, "tenant", "snap")
    assert harness.run(stack_id, Action.SNAPSHOT, snapshot_id=snapshot.id) == "SNAPSHOT_COMPLETE"
    changed = harness.template({**RESOURCES, "a": res("two"), "extra": res()})
    assert harness.run(stack_id, Action.UPDATE, changed) == "UPDATE_COMPLETE"
    data = harness.store.get_snapshot(snapshot.id).data
    assert data is not None
    back = harness.store.store_raw_template(data["template"], data["environment"], data["files"])
    state = harness.run(stack_id, Action.RESTORE, back, snapshot_id=snapshot.id)
    assert state == "RESTORE_COMPLETE", harness.reason(stack_id)
    assert harness.value_of(stack_id, "a") == "one"
    assert set(harness.live(stack_id)) == {"a", "b"}


def test_abandon_forgets_the_resources_and_the_stack(harness: Harness) -> None:
    stack_id = harness.create({"a": res(action_wait_secs={"delete": 60})})
    # A delete of "a" would take a minute: abandoning never calls the plugin.
    assert harness.run(stack_id, Action.ABANDON) == "DELETE_COMPLETE", harness.reason(stack_id)
    assert ("a", "DELETE", "COMPLETE", "state changed") in harness.events(stack_id)


def test_adopt_takes_over_existing_resources(harness: Harness) -> None:
    stack_id = harness.stack(RESOURCES)
    adopt = {
        "resources": {
            "a": {"resource_id": "phys-a", "resource_data": {"value": "adopted"}},
            "b": {"resource_id": "phys-b", "resource_data": {}},
        }
    }
    state = harness.run(stack_id, Action.ADOPT, adopt_data=adopt)
    assert state == "ADOPT_COMPLETE", harness.reason(stack_id)
    live = harness.live(stack_id)
    assert {name: row.physical_resource_id for name, row in live.items()} == {
        "a": "phys-a",
        "b": "phys-b",
    }
    assert harness.states(stack_id) == {"a": "ADOPT_COMPLETE", "b": "ADOPT_COMPLETE"}
    assert harness.store.get_resource_attributes(live["a"].id) == {
        "output": "adopted",
        "__reference_id__": "phys-a",
    }


def test_adopt_without_data_for_a_resource_fails_it(harness: Harness) -> None:
    stack_id = harness.stack({"a": res()})
    assert harness.run(stack_id, Action.ADOPT, adopt_data={"resources": {}}) == "ADOPT_FAILED"
    assert harness.live(stack_id)["a"].status_reason == (
        "Exception: resources.a: Resource ID was not provided."
    )


def test_a_suspend_that_failed_half_way_can_be_retried(harness: Harness) -> None:
    slow = {
        "type": "OS::Heat::Delay",
        "properties": {"min_wait": 2, "actions": ["SUSPEND", "RESUME"]},
    }
    stack_id = harness.create({"slow": slow, "fast": {**res(), "depends_on": "slow"}})
    # The dependent is suspended first, then the deadline passes while "slow" suspends.
    state = harness.run(stack_id, Action.SUSPEND, timeout_seconds=1)
    assert state == "SUSPEND_FAILED", harness.reason(stack_id)
    assert harness.states(stack_id)["fast"] == "SUSPEND_COMPLETE"
    assert harness.run(stack_id, Action.SUSPEND) == "SUSPEND_COMPLETE", harness.reason(stack_id)
    assert harness.states(stack_id) == {"slow": "SUSPEND_COMPLETE", "fast": "SUSPEND_COMPLETE"}
    # "fast" was suspended once: the retry found nothing to do for it.
    suspends = [e for e in harness.events(stack_id) if e[:3] == ("fast", "SUSPEND", "COMPLETE")]
    assert len(suspends) == 1
