"""Create, update (in place and by replacement) and delete stacks through the actor runtime."""

from __future__ import annotations

import pytest

from tests.scenarios.runtime_harness import Harness, res
from thermik.actors.planning import definition_of
from thermik.actors.stored import REFERENCE_ID_KEY, StoredResolution
from thermik.engine.states import Action
from thermik.errors import InvalidTransition, StackNotFound

DEPENDENT = {
    "a": res("alpha"),
    "b": {
        "type": "OS::Heat::TestResource",
        "properties": {"value": {"get_attr": ["a", "output"]}},
    },
    "c": {
        "type": "OS::Heat::TestResource",
        "properties": {"value": {"get_resource": "b"}},
    },
}
OUTPUTS = {
    "a_out": {"value": {"get_attr": ["a", "output"]}},
    "c_ref": {"value": {"get_resource": "c"}},
}


def test_create_records_states_events_and_attributes(harness: Harness) -> None:
    stack_id = harness.create(DEPENDENT, outputs=OUTPUTS)
    assert harness.reason(stack_id) == "Stack CREATE completed successfully"
    assert harness.states(stack_id) == dict.fromkeys("abc", "CREATE_COMPLETE")
    assert harness.locked(stack_id) == []
    live = harness.live(stack_id)
    assert harness.value_of(stack_id, "b") == "alpha"
    assert harness.value_of(stack_id, "c") == live["b"].physical_resource_id
    stored = harness.store.get_resource_attributes(live["a"].id)
    assert stored == {"output": "alpha", REFERENCE_ID_KEY: live["a"].physical_resource_id}
    events = harness.events(stack_id)
    assert events[0] == ("s", "CREATE", "IN_PROGRESS", "Stack CREATE started")
    assert events[-1] == ("s", "CREATE", "COMPLETE", "Stack CREATE completed successfully")
    for name in "abc":
        assert (name, "CREATE", "IN_PROGRESS", "state changed") in events
        assert (name, "CREATE", "COMPLETE", "state changed") in events
    assert (
        harness.store.list_traversal_arrivals(harness.store.get_stack(stack_id).current_traversal)
        == []
    )


def test_dependencies_complete_before_their_dependents_start(harness: Harness) -> None:
    stack_id = harness.create(DEPENDENT)
    events = harness.events(stack_id)
    done_a = events.index(("a", "CREATE", "COMPLETE", "state changed"))
    start_b = events.index(("b", "CREATE", "IN_PROGRESS", "state changed"))
    done_b = events.index(("b", "CREATE", "COMPLETE", "state changed"))
    start_c = events.index(("c", "CREATE", "IN_PROGRESS", "state changed"))
    assert done_a < start_b < done_b < start_c


def test_outputs_resolve_from_stored_attributes(harness: Harness) -> None:
    stack_id = harness.create(DEPENDENT, outputs=OUTPUTS)
    stack = harness.store.get_stack(stack_id)
    definition = definition_of(harness.runtime._services, stack, stack.raw_template_id)
    outputs = definition.resolve_outputs(StoredResolution(harness.store, stack_id))
    assert outputs["a_out"].value == "alpha"
    assert outputs["c_ref"].value == harness.live(stack_id)["c"].physical_resource_id


def test_update_in_place_keeps_versions_and_reaches_dependents(harness: Harness) -> None:
    stack_id = harness.create(DEPENDENT)
    before = {name: row.id for name, row in harness.live(stack_id).items()}
    changed = {**DEPENDENT, "a": res("beta")}
    state = harness.run(stack_id, Action.UPDATE, harness.template(changed))
    assert state == "UPDATE_COMPLETE", harness.reason(stack_id)
    after = harness.live(stack_id)
    assert {name: row.id for name, row in after.items()} == before
    assert harness.value_of(stack_id, "b") == "beta"
    assert after["a"].action == "UPDATE"
    # c's properties did not change: it is left alone, with no event.
    assert after["c"].action == "CREATE"
    assert not [e for e in harness.events(stack_id) if e[0] == "c" and e[1] == "UPDATE"]


def test_replacement_creates_the_new_version_before_deleting_the_old(harness: Harness) -> None:
    stack_id = harness.create({"a": res("one", update_replace=True), "b": DEPENDENT["b"]})
    old = harness.live(stack_id)["a"]
    state = harness.run(
        stack_id,
        Action.UPDATE,
        harness.template({"a": res("two", update_replace=True), "b": DEPENDENT["b"]}),
    )
    assert state == "UPDATE_COMPLETE", harness.reason(stack_id)
    new = harness.live(stack_id)["a"]
    assert new.id != old.id
    assert new.replaces == old.id
    assert new.physical_resource_id != old.physical_resource_id
    assert harness.value_of(stack_id, "b") == "two"
    events = harness.events(stack_id)
    created = events.index(("a", "CREATE", "COMPLETE", "state changed"), 3)
    b_updated = events.index(("b", "UPDATE", "COMPLETE", "state changed"))
    deleted = events.index(("a", "DELETE", "IN_PROGRESS", "state changed"))
    assert created < b_updated < deleted
    assert [row.id for row in harness.rows(stack_id) if row.name == "a"] == [new.id]


def test_resources_added_and_removed_by_an_update(harness: Harness) -> None:
    stack_id = harness.create({"a": res(), "gone": res()})
    state = harness.run(stack_id, Action.UPDATE, harness.template({"a": res(), "new": res()}))
    assert state == "UPDATE_COMPLETE", harness.reason(stack_id)
    assert harness.states(stack_id) == {"a": "CREATE_COMPLETE", "new": "CREATE_COMPLETE"}
    assert {row.name for row in harness.rows(stack_id)} == {"a", "new"}


def test_delete_removes_every_resource_and_the_stack(harness: Harness) -> None:
    stack_id = harness.create(DEPENDENT)
    assert harness.run(stack_id, Action.DELETE) == "DELETE_COMPLETE"
    with pytest.raises(StackNotFound):
        harness.store.get_stack(stack_id)
    events = harness.events(stack_id)
    assert events.index(("c", "DELETE", "COMPLETE", "state changed")) < events.index(
        ("a", "DELETE", "IN_PROGRESS", "state changed")
    )
    assert {e[0] for e in events if e[1:3] == ("DELETE", "COMPLETE")} == {"a", "b", "c", "s"}


def test_delete_keeps_what_its_template_retains(harness: Harness) -> None:
    # A delete of "kept" would wait forever: the retained version is forgotten, not deleted.
    forever = res("v", action_wait_secs={"delete": -1})
    stack_id = harness.create({"kept": {**forever, "deletion_policy": "Retain"}, "gone": res()})
    kept = harness.live(stack_id)["kept"]
    assert harness.run(stack_id, Action.DELETE) == "DELETE_COMPLETE", harness.reason(stack_id)
    events = harness.events(stack_id)
    assert ("kept", "DELETE", "COMPLETE", "state changed") in events
    assert kept.physical_resource_id is not None


def test_a_stack_with_no_resources_completes_at_once(harness: Harness) -> None:
    stack_id = harness.create({})
    assert harness.run(stack_id, Action.DELETE) == "DELETE_COMPLETE"


def test_requests_the_stack_cannot_take_are_refused(harness: Harness) -> None:
    stack_id = harness.stack({"a": res()})
    with pytest.raises(InvalidTransition, match="stack cannot go from INIT_COMPLETE"):
        harness.converge(stack_id, Action.UPDATE)
    with pytest.raises(StackNotFound):
        harness.converge("no-such-stack", Action.CREATE)
    assert harness.store.get_stack(stack_id).action == "INIT"
