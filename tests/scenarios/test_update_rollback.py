"""Updates in place, replacement (create before delete), failures and rollback."""

from __future__ import annotations

from tests.scenarios.simulator import World
from thermik.engine.messages import CreateReplacementVersion
from thermik.engine.operations import NodeAction
from thermik.engine.states import Action, State, Status
from thermik.engine.traversal import Phase

CHAIN = {"net": set(), "server": {"net"}, "ip": {"server"}}
C, U, D = NodeAction.CREATE, NodeAction.UPDATE, NodeAction.DELETE


def created(deps: dict[str, set[str]], **options: object) -> World:
    world = World(**options)  # type: ignore[arg-type]
    world.start(Action.CREATE, deps)
    world.run()
    assert world.stack == State(Action.CREATE, Status.COMPLETE)
    return world


def test_update_in_place_keeps_every_version() -> None:
    world = created(CHAIN)
    before = world.live()
    traversal = world.start(Action.UPDATE, CHAIN)
    world.run()
    assert world.stack == State(Action.UPDATE, Status.COMPLETE)
    assert world.order(traversal) == [("net", U), ("server", U), ("ip", U)]
    assert world.live() == before


def test_update_adds_and_removes_resources() -> None:
    world = created(CHAIN)
    new = {"net": set(), "server": {"net"}, "volume": {"server"}}
    traversal = world.start(Action.UPDATE, new)
    world.run()
    assert world.stack == State(Action.UPDATE, Status.COMPLETE)
    order = world.order(traversal)
    assert ("volume", C) in order
    assert ("ip", D) in order
    # The removed ip depended on server: it goes before server would be touched by cleanup.
    assert sorted(world.live()) == ["net", "server", "volume"]


def test_removed_dependency_is_deleted_after_its_dependents_moved_off_it() -> None:
    world = created({"old": set(), "app": {"old"}})
    traversal = world.start(Action.UPDATE, {"new": set(), "app": {"new"}})
    world.run()
    order = world.order(traversal)
    assert order.index(("app", U)) < order.index(("old", D))
    assert order.index(("new", C)) < order.index(("app", U))
    assert sorted(world.live()) == ["app", "new"]


def test_replacement_creates_before_it_deletes() -> None:
    world = created(CHAIN)
    old_server = world.live()["server"][0]
    world.replace_on.add("server")
    traversal = world.start(Action.UPDATE, CHAIN)
    world.run()
    assert world.stack == State(Action.UPDATE, Status.COMPLETE)
    order = world.order(traversal)
    assert order == [("net", U), ("server", U), ("server", C), ("ip", U), ("server", D)]
    new_server = world.live()["server"]
    assert new_server != [old_server]
    assert len(new_server) == 1
    # The dependent was converged with the replacement's node data.
    ip_check = next(c for c in world.dispatched if c.traversal_id == traversal and c.name == "ip")
    assert ip_check.input_data["server"].version_id == new_server[0]
    assert world.rows[new_server[0]].requires == frozenset({world.live()["net"][0]})


def test_replacement_request_carries_the_requires_of_the_new_version() -> None:
    world = World()
    world.start(Action.CREATE, CHAIN)
    world.run()
    world.replace_on.add("server")
    commands: list[CreateReplacementVersion] = []
    original = world.replace
    world.replace = lambda command: (commands.append(command), original(command))  # type: ignore[method-assign]
    world.start(Action.UPDATE, CHAIN)
    world.run()
    (command,) = commands
    assert command.name == "server"
    assert command.requires == frozenset(world.live()["net"])


def test_failed_update_rolls_back_to_the_previous_template() -> None:
    world = created(CHAIN)
    before = world.live()
    world.fail_on[("server", U)] = 1
    update = world.start(Action.UPDATE, {**CHAIN, "extra": {"net"}})
    world.run()
    assert world.stack == State(Action.ROLLBACK, Status.COMPLETE)
    reasons = [(str(e.state), e.reason) for e in world.events if e.traversal_id == update]
    assert reasons[1] == (
        "UPDATE_FAILED",
        "Resource UPDATE failed: ResourceInError: resources.server: went to ERROR",
    )
    assert sorted(world.live()) == sorted(before)
    # The failed server was replaced during rollback (Heat replaces FAILED resources).
    assert len(world.live()["server"]) == 1


def test_failure_stops_new_dispatches_but_running_nodes_finish() -> None:
    deps = {"a": set(), "b": set(), "c": {"a"}, "d": {"b"}}
    world = World()
    world.hold("b")
    world.fail_on[("a", C)] = 1
    traversal = world.start(Action.CREATE, deps, disable_rollback=True)
    world.run()
    assert world.stack == State(Action.CREATE, Status.FAILED)
    assert world.phase is Phase.FAILED
    assert traversal not in world.closed
    world.release("b")
    world.run()
    assert [c.name for c in world.dispatched] == ["a", "b"]
    assert world.closed == [traversal]
    assert world.state.rollback_started is False


def test_failed_create_rolls_back_by_deleting_everything() -> None:
    world = World()
    world.fail_on[("ip", C)] = 1
    world.start(Action.CREATE, CHAIN)
    world.run()
    assert world.stack == State(Action.ROLLBACK, Status.COMPLETE)
    assert world.live() == {}


def test_disable_rollback_leaves_the_stack_failed() -> None:
    world = World()
    world.fail_on[("ip", C)] = 1
    world.start(Action.CREATE, CHAIN, disable_rollback=True)
    world.run()
    assert world.stack == State(Action.CREATE, Status.FAILED)
    assert sorted(world.live()) == ["net", "server"]
    assert [str(e.state) for e in world.events] == ["CREATE_IN_PROGRESS", "CREATE_FAILED"]


def test_rollback_restores_the_replaced_version_and_deletes_the_replacement() -> None:
    world = created(CHAIN)
    old_server = world.live()["server"]
    world.replace_on.add("server")
    world.fail_on[("ip", U)] = 1
    world.start(Action.UPDATE, CHAIN)
    world.run()
    assert world.stack == State(Action.ROLLBACK, Status.COMPLETE)
    assert world.live()["server"] == old_server
    rollback = world.current_traversal
    order = world.order(rollback)
    assert order.index(("server", U)) < order.index(("server", D))


def test_failed_rollback_does_not_roll_back_again() -> None:
    world = created(CHAIN)
    world.fail_on[("server", U)] = 1
    world.fail_on[("net", U)] = 1
    world.start(Action.UPDATE, CHAIN)
    world.run()
    assert world.stack == State(Action.ROLLBACK, Status.FAILED)
    assert world.current_traversal == "t3"


def test_replacement_during_create_cleans_up_the_abandoned_version() -> None:
    world = World()
    world.start(Action.CREATE, {"a": set()})
    world.run()
    world.fail_on[("b", C)] = 1
    world.start(Action.UPDATE, {"a": set(), "b": {"a"}}, disable_rollback=True)
    world.run()
    assert world.stack == State(Action.UPDATE, Status.FAILED)
    # A retried update replaces the FAILED version and deletes it after the new one exists.
    traversal = world.start(Action.UPDATE, {"a": set(), "b": {"a"}})
    world.run()
    assert world.stack == State(Action.UPDATE, Status.COMPLETE)
    order = world.order(traversal)
    assert order.index(("b", C)) < order.index(("b", D))
    assert len(world.live()["b"]) == 1
