"""Breakpoint hooks through the pure core: where a node stops, what clears it, what ends a wait.

Heat's behaviour these follow (heat-tempest-plugin's ``test_hooks``): a resource with a
``pre-create`` hook stays ``INIT_COMPLETE`` with the event "CREATE paused until Hook pre-create
is cleared" until a signal ``{"unset_hook": "pre-create"}`` clears it ("Hook pre-create is
cleared"); its dependents wait for it; a ``pre-update`` hook stops even an update that changes
nothing, with the resource's state unchanged in its events.
"""

from __future__ import annotations

from immutables import Map

from tests.scenarios.simulator import World
from thermik.engine.messages import (
    CancelRequested,
    HookCleared,
    RecordEvent,
    TimeoutFired,
    TraversalOptions,
)
from thermik.engine.operations import NodeAction
from thermik.engine.states import Action, State, Status
from thermik.engine.traversal import Phase

CHAIN = {"step1": set(), "step2": {"step1"}, "step3": {"step2"}}
CREATE_COMPLETE = State(Action.CREATE, Status.COMPLETE)
INIT_COMPLETE = State(Action.INIT, Status.COMPLETE)


def hooked(**hooks: str) -> World:
    table = {name: frozenset(value.split(",")) for name, value in hooks.items()}
    return World(TraversalOptions(hooks=Map(table)))


def resource_events(world: World, name: str) -> list[tuple[str, str]]:
    return [
        (str(event.state), event.reason)
        for event in world.events
        if isinstance(event, RecordEvent) and event.resource_name == name
    ]


def clear(world: World, name: str, hook: str) -> None:
    world.feed(HookCleared(world.current_traversal, name, hook))
    world.run()


def test_pre_create_stops_the_resource_and_its_dependents_until_cleared() -> None:
    world = hooked(step2="pre-create")
    world.start(Action.CREATE, CHAIN)
    world.run()
    assert world.order() == [("step1", NodeAction.CREATE)]
    assert world.stack == State(Action.CREATE, Status.IN_PROGRESS)
    assert resource_events(world, "step2") == [
        ("INIT_COMPLETE", "CREATE paused until Hook pre-create is cleared")
    ]
    clear(world, "step2", "pre-create")
    assert resource_events(world, "step2")[-1] == ("INIT_COMPLETE", "Hook pre-create is cleared")
    assert [name for name, _ in world.order()] == ["step1", "step2", "step3"]
    assert world.stack == CREATE_COMPLETE


def test_a_wildcard_stops_each_matching_resource_in_turn() -> None:
    world = hooked(step1="pre-create", step2="pre-create", step3="pre-create")
    world.start(Action.CREATE, CHAIN)
    for name in ("step1", "step2", "step3"):
        world.run()
        assert set(world.state.paused.keys()) == {(name, "pre-create")}
        clear(world, name, "pre-create")
    assert world.stack == CREATE_COMPLETE


def test_clearing_a_hook_the_resource_is_not_at_is_rejected_and_changes_nothing() -> None:
    world = hooked(step2="pre-create")
    world.start(Action.CREATE, CHAIN)
    world.run()
    before = world.state
    for name, hook in (("step2", "pre-update"), ("step3", "pre-create"), ("nope", "pre-create")):
        world.feed(HookCleared(world.current_traversal, name, hook))
        assert world.state is before
    reasons = [r.failure.message for r in world.rejected]
    assert reasons[0] == 'The "pre-update" hook is not defined on step2'
    assert len(reasons) == 3


def test_pre_update_stops_an_update_that_changes_nothing_with_the_state_unchanged() -> None:
    world = hooked(step2="pre-update")
    world.start(Action.CREATE, CHAIN)
    world.run()
    assert world.stack == CREATE_COMPLETE
    assert not resource_events(world, "step2")  # a pre-update hook does not stop a create
    world.start(Action.UPDATE, CHAIN)
    world.run()
    assert world.stack == State(Action.UPDATE, Status.IN_PROGRESS)
    assert resource_events(world, "step2") == [
        ("CREATE_COMPLETE", "UPDATE paused until Hook pre-update is cleared")
    ]
    clear(world, "step2", "pre-update")
    assert resource_events(world, "step2")[-1] == ("CREATE_COMPLETE", "Hook pre-update is cleared")
    assert world.stack == State(Action.UPDATE, Status.COMPLETE)


def test_pre_update_stops_before_a_replacement_and_the_replacement_does_not_stop_again() -> None:
    world = hooked(step2="pre-update,pre-create")
    world.start(Action.CREATE, CHAIN)
    world.run()
    clear(world, "step2", "pre-create")
    world.replace_on.add("step2")
    world.start(Action.UPDATE, CHAIN)
    world.run()
    assert set(world.state.paused.keys()) == {("step2", "pre-update")}
    clear(world, "step2", "pre-update")
    assert world.stack == State(Action.UPDATE, Status.COMPLETE)
    assert len(world.live()["step2"]) == 1
    paused = [reason for _, reason in resource_events(world, "step2") if "paused" in reason]
    assert paused == [
        "CREATE paused until Hook pre-create is cleared",
        "UPDATE paused until Hook pre-update is cleared",
    ]


def test_a_resource_added_by_an_update_does_not_stop_at_pre_create() -> None:
    world = hooked(step3="pre-create")
    world.start(Action.CREATE, {"step1": set()})
    world.run()
    world.start(Action.UPDATE, {"step1": set(), "step3": set()})
    world.run()
    assert world.stack == State(Action.UPDATE, Status.COMPLETE)


def test_post_create_holds_the_dependents_of_a_created_resource() -> None:
    world = hooked(step1="post-create")
    world.start(Action.CREATE, CHAIN)
    world.run()
    assert world.order() == [("step1", NodeAction.CREATE)]
    assert resource_events(world, "step1") == [
        ("CREATE_COMPLETE", "CREATE paused until Hook post-create is cleared")
    ]
    clear(world, "step1", "post-create")
    assert world.stack == CREATE_COMPLETE


def test_pre_delete_and_post_delete_stop_a_stack_delete() -> None:
    world = hooked(step3="pre-delete", step1="post-delete")
    world.start(Action.CREATE, CHAIN)
    world.run()
    world.start(Action.DELETE)
    world.run()
    assert world.order(world.current_traversal) == []
    assert resource_events(world, "step3") == [
        ("CREATE_COMPLETE", "DELETE paused until Hook pre-delete is cleared")
    ]
    clear(world, "step3", "pre-delete")
    assert resource_events(world, "step1")[-1] == (
        "DELETE_COMPLETE",
        "DELETE paused until Hook post-delete is cleared",
    )
    assert world.stack == State(Action.DELETE, Status.IN_PROGRESS)
    clear(world, "step1", "post-delete")
    assert world.stack == State(Action.DELETE, Status.COMPLETE)
    assert world.live() == {}


def test_the_deadline_ends_a_wait_at_a_hook() -> None:
    world = hooked(step2="pre-create")
    world.start(Action.CREATE, CHAIN, disable_rollback=True)
    world.run()
    world.feed(TimeoutFired(world.current_traversal))
    assert world.stack == State(Action.CREATE, Status.FAILED)
    assert world.stack_reason == "Timed out"
    assert resource_events(world, "step2")[-1] == (
        "INIT_COMPLETE",
        "Failure occurred while waiting.",
    )
    assert world.state.paused == Map()
    assert world.phase is Phase.FAILED
    assert world.closed == [world.current_traversal]


def test_a_cancel_ends_a_wait_and_rolls_back() -> None:
    world = hooked(step2="pre-create")
    world.start(Action.CREATE, CHAIN)
    world.run()
    first = world.current_traversal
    world.feed(CancelRequested(first, rollback=True))
    world.run()
    assert resource_events(world, "step2")[-1][1] == "Failure occurred while waiting."
    assert world.current_traversal != first
    assert world.stack == State(Action.ROLLBACK, Status.COMPLETE)
    assert world.live() == {}
    # The wait is over: clearing it now is refused.
    world.feed(HookCleared(first, "step2", "pre-create"))
    assert world.rejected


def test_post_update_stops_after_an_update() -> None:
    world = hooked(step1="post-update")
    world.start(Action.CREATE, CHAIN)
    world.run()
    world.start(Action.UPDATE, CHAIN)
    world.run()
    assert set(world.state.paused.keys()) == {("step1", "post-update")}
    clear(world, "step1", "post-update")
    assert world.stack == State(Action.UPDATE, Status.COMPLETE)
