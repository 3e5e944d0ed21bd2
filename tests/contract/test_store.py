"""The Store contract, part 1: templates, stacks, resources, events and the join log.

Every test runs on SQLite, PostgreSQL and MariaDB (see conftest.py).
"""

from __future__ import annotations

import datetime

import pytest
from sqlalchemy import text

from tests.contract.conftest import FakeClock
from thermik.errors import (
    Conflict,
    DuplicateName,
    GenerationConflict,
    InvalidInput,
    InvalidRequest,
    LockConflict,
    NotFound,
    ResourceNotFound,
    StackNotFound,
    TraversalConflict,
)
from thermik.persistence.resource_values import (
    EventQuery,
    JoinArrival,
    NewEvent,
    NewResource,
    ResourceChanges,
)
from thermik.persistence.sql.store import SqlStore
from thermik.persistence.values import NewStack, Stack, StackChanges, StackQuery

TEMPLATE = {"heat_template_version": "2021-04-16", "resources": {}}


def make_stack(store: SqlStore, name: str = "web", tenant: str = "t1", **kw: object) -> Stack:
    template_id = store.store_raw_template(TEMPLATE, {}, {})
    return store.create_stack(NewStack(name, tenant, template_id, **kw))  # type: ignore[arg-type]


def raw_text(store: SqlStore, sql: str) -> str:
    return " ".join(
        str(v) for row in store._db.read(lambda c: c.execute(text(sql)).all()) for v in row
    )


# -- templates ----------------------------------------------------------------------------------


def test_template_round_trip_with_files_and_unicode(store: SqlStore) -> None:
    env = {"parameters": {"size": 3, "name": "wébserver ✓"}, "resource_registry": {}}
    files = {"lib/a.yaml": "a: 1", "b.sh": "echo ✓"}
    template_id = store.store_raw_template(TEMPLATE, env, files)
    got = store.get_raw_template(template_id)
    assert (got.template, got.environment, got.files) == (TEMPLATE, env, files)
    assert got.hidden_parameters == frozenset()


def test_identical_files_are_stored_once(store: SqlStore) -> None:
    files = {"x.yaml": "x"}
    first = store.store_raw_template(TEMPLATE, {}, files)
    second = store.store_raw_template(TEMPLATE, {}, dict(files))
    assert first != second
    assert raw_text(store, "SELECT COUNT(*) FROM raw_template_files") == "1"


def test_hidden_parameters_are_encrypted_at_rest(store: SqlStore) -> None:
    env = {
        "parameters": {"password": "s3cr3t-pw", "flavor": "m1.visible-flavor"},
        "parameter_defaults": {"password": "d3fault-pw"},
    }
    template_id = store.store_raw_template(TEMPLATE, env, {}, hidden_parameters=["password"])
    stored = raw_text(store, "SELECT environment FROM raw_template")
    assert "s3cr3t-pw" not in stored
    assert "d3fault-pw" not in stored
    # With a key every parameter value is sealed, hidden or not.
    assert "m1.visible-flavor" not in stored
    got = store.get_raw_template(template_id)
    assert got.environment == env
    assert got.hidden_parameters == {"password"}


def test_missing_template(store: SqlStore) -> None:
    with pytest.raises(NotFound, match="raw template 999 not found"):
        store.get_raw_template(999)


def test_template_in_use_cannot_be_deleted(store: SqlStore) -> None:
    stack = make_stack(store)
    with pytest.raises(Conflict, match="still in use"):
        store.delete_raw_template(stack.raw_template_id)
    spare = store.store_raw_template(TEMPLATE, {}, {})
    store.delete_raw_template(spare)
    with pytest.raises(NotFound):
        store.get_raw_template(spare)


# -- stacks -------------------------------------------------------------------------------------


def test_create_and_get_stack(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, tags=("a", "b"), timeout_mins=30, username="alice")
    assert stack.root_id == stack.id
    assert stack.nested_depth == 0
    assert stack.owner_id is None
    assert (stack.action, stack.status, stack.current_traversal) == ("INIT", "COMPLETE", "")
    assert stack.tags == ("a", "b")
    assert stack.timeout_mins == 30
    assert stack.created_at == clock.now
    assert store.get_stack(stack.id) == stack
    assert store.get_stack(stack.id, tenant="t1") == stack
    assert store.get_stack_by_name("t1", "web") == stack


def test_stack_of_another_tenant_is_not_found(store: SqlStore) -> None:
    stack = make_stack(store)
    with pytest.raises(StackNotFound):
        store.get_stack(stack.id, tenant="t2")
    with pytest.raises(StackNotFound):
        store.get_stack_by_name("t2", "web")


def test_duplicate_name_in_tenant(store: SqlStore) -> None:
    make_stack(store)
    with pytest.raises(DuplicateName, match="'web' already exists"):
        make_stack(store)
    make_stack(store, tenant="t2")
    make_stack(store, name="WEB")  # names are case-sensitive on every backend


def test_nested_stack_records_owner_root_and_depth(store: SqlStore) -> None:
    root = make_stack(store, name="root")
    child = make_stack(store, name="child", owner_id=root.id, parent_resource_name="group")
    grandchild = make_stack(store, name="grandchild", owner_id=child.id)
    assert (child.root_id, child.nested_depth, child.owner_id) == (root.id, 1, root.id)
    assert (grandchild.root_id, grandchild.nested_depth) == (root.id, 2)
    assert [s.name for s in store.list_stack_tree(root.id)] == ["root", "child", "grandchild"]
    with pytest.raises(StackNotFound):
        make_stack(store, name="orphan", owner_id="no-such-stack")


def test_a_stack_user_project_is_recorded_on_the_whole_tree(store: SqlStore) -> None:
    root = make_stack(store, name="root")
    child = make_stack(store, name="child", owner_id=root.id)
    other = make_stack(store, name="other")
    store.set_stack_user_project(root.id, "p" * 32)
    store.set_stack_user_project(root.id, "p" * 32)
    assert [s.stack_user_project_id for s in store.list_stack_tree(root.id)] == ["p" * 32] * 2
    assert store.get_stack(child.id).stack_user_project_id == "p" * 32
    assert store.get_stack(other.id).stack_user_project_id is None


def test_swap_traversal_wins_once(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store)
    clock.advance(5)
    changes = StackChanges(action="CREATE", status="IN_PROGRESS", status_reason="started")
    swapped = store.swap_traversal(stack.id, "", "T1", changes)
    assert (swapped.current_traversal, swapped.action, swapped.status) == (
        "T1",
        "CREATE",
        "IN_PROGRESS",
    )
    assert swapped.traversal_started_at == clock.now == swapped.updated_at
    with pytest.raises(
        TraversalConflict, match="traversal \\(none\\) is not current \\(current: T1\\)"
    ):
        store.swap_traversal(stack.id, "", "T2")
    assert store.get_stack(stack.id).current_traversal == "T1"


def test_swap_traversal_applies_all_changes(store: SqlStore) -> None:
    stack = make_stack(store, tags=("old",))
    new_template = store.store_raw_template(TEMPLATE, {"parameters": {"a": 1}}, {})
    changes = StackChanges(
        raw_template_id=new_template,
        prev_raw_template_id=stack.raw_template_id,
        timeout_mins=None,
        disable_rollback=False,
        current_deps={"edges": [[[1, True], None]]},
        tags=("x", "y"),
    )
    got = store.swap_traversal(stack.id, "", "T1", changes)
    assert (got.raw_template_id, got.prev_raw_template_id) == (new_template, stack.raw_template_id)
    assert got.disable_rollback is False
    assert got.tags == ("x", "y")
    assert got.current_deps == {"edges": [[[1, True], None]]}
    cleared = store.update_stack(stack.id, "T1", StackChanges(prev_raw_template_id=None))
    assert cleared.prev_raw_template_id is None
    assert cleared.tags == ("x", "y")


def test_update_stack_is_fenced_by_traversal(store: SqlStore) -> None:
    stack = make_stack(store, current_traversal="T1")
    store.update_stack(stack.id, "T1", StackChanges(status="FAILED", status_reason="x" * 20000))
    got = store.get_stack(stack.id)
    assert got.status == "FAILED"
    assert len(got.status_reason) == 16000
    with pytest.raises(TraversalConflict):
        store.update_stack(stack.id, "T0", StackChanges(status="COMPLETE"))
    with pytest.raises(StackNotFound):
        store.update_stack("missing", "T1", StackChanges(status="COMPLETE"))


def test_update_stack_with_tags_alone(store: SqlStore, clock: FakeClock) -> None:
    stack = make_stack(store, current_traversal="T1", tags=("old",))
    clock.advance(5)
    got = store.update_stack(stack.id, "T1", StackChanges(tags=("new", "newer")))
    assert got.tags == ("new", "newer")
    assert got.updated_at == clock.now
    assert (got.disable_rollback, got.status) == (stack.disable_rollback, stack.status)
    swapped = store.swap_traversal(stack.id, "T1", "T2", StackChanges(tags=()))
    assert (swapped.current_traversal, swapped.tags) == ("T2", ())
    with pytest.raises(TraversalConflict):
        store.update_stack(stack.id, "T1", StackChanges(tags=("late",)))
    assert store.get_stack(stack.id).tags == ()
    assert store.update_stack(stack.id, "T2", StackChanges()).current_traversal == "T2"


def test_soft_delete_frees_the_name(store: SqlStore) -> None:
    stack = make_stack(store, current_traversal="T1")
    with pytest.raises(TraversalConflict):
        store.soft_delete_stack(stack.id, "T0")
    store.soft_delete_stack(stack.id, "T1")
    with pytest.raises(StackNotFound):
        store.get_stack(stack.id)
    assert store.get_stack(stack.id, show_deleted=True).deleted_at is not None
    again = make_stack(store)
    assert again.id != stack.id


def test_soft_delete_settles_the_stack_in_the_same_write(store: SqlStore) -> None:
    stack = make_stack(store, current_traversal="T1")
    done = StackChanges(action="DELETE", status="COMPLETE", status_reason="deleted")
    with pytest.raises(TraversalConflict):
        store.soft_delete_stack(stack.id, "T0", done)
    assert store.get_stack(stack.id).action != "DELETE"
    store.soft_delete_stack(stack.id, "T1", done)
    got = store.get_stack(stack.id, show_deleted=True)
    assert (got.action, got.status, got.status_reason) == ("DELETE", "COMPLETE", "deleted")
    assert got.deleted_at is not None


def test_purge_deleted_removes_old_trees_only(store: SqlStore, clock: FakeClock) -> None:
    old = make_stack(store, name="old", current_traversal="T")
    child = make_stack(store, name="old-child", owner_id=old.id, current_traversal="T")
    resource = store.create_resource(
        NewResource(child.id, old.id, "r", "T", child.raw_template_id)
    )
    store.store_resource_properties(resource.id, {"a": 1})
    store.append_event(NewEvent(old.id, "old", "DELETE", "COMPLETE"))
    store.soft_delete_stack(child.id, "T")
    store.soft_delete_stack(old.id, "T")
    clock.advance(86400 * 2)
    recent = make_stack(store, name="recent", current_traversal="T")
    store.soft_delete_stack(recent.id, "T")
    live = make_stack(store, name="live")
    assert store.purge_deleted(clock.now - datetime.timedelta(days=1)) == 2
    with pytest.raises(StackNotFound):
        store.get_stack(old.id, show_deleted=True)
    with pytest.raises(NotFound):
        store.get_raw_template(old.raw_template_id)
    assert store.get_stack(recent.id, show_deleted=True).id == recent.id
    assert store.get_stack(live.id).id == live.id
    assert raw_text(store, "SELECT COUNT(*) FROM resource_properties_data") == "0"
    assert raw_text(store, "SELECT COUNT(*) FROM event") == "0"


# -- stack lists ----------------------------------------------------------------------------------


@pytest.fixture
def listed(store: SqlStore, clock: FakeClock) -> dict[str, Stack]:
    stacks = {}
    for name, tags in [("a", ("x", "y")), ("b", ("x",)), ("c", ()), ("d", ("y", "z"))]:
        clock.advance(1)
        stacks[name] = make_stack(store, name=name, tags=tags)
    stacks["nested"] = make_stack(store, name="nested", owner_id=stacks["a"].id)
    stacks["other"] = make_stack(store, name="other", tenant="t2")
    gone = make_stack(store, name="gone", current_traversal="T")
    store.soft_delete_stack(gone.id, "T")
    stacks["gone"] = gone
    return stacks


def names(stacks: list[Stack]) -> list[str]:
    return [s.name for s in stacks]


def test_list_defaults_newest_first_top_level_live_own_tenant(
    store: SqlStore, listed: dict[str, Stack]
) -> None:
    assert names(store.list_stacks(StackQuery(tenant="t1"))) == ["d", "c", "b", "a"]
    assert store.count_stacks(StackQuery(tenant="t1")) == 4


def test_list_nested_deleted_and_all_tenants(store: SqlStore, listed: dict[str, Stack]) -> None:
    query = StackQuery(
        tenant="t1", show_nested=True, show_deleted=True, sort_key="name", sort_dir="asc"
    )
    assert names(store.list_stacks(query)) == ["a", "b", "c", "d", "gone", "nested"]
    assert "other" in names(store.list_stacks(StackQuery(tenant=None)))


@pytest.mark.parametrize(
    ("tags", "expected"),
    [
        ({"tags": ("x", "y")}, ["a"]),
        ({"tags_any": ("x", "z")}, ["a", "b", "d"]),
        ({"not_tags": ("x", "y")}, ["b", "c", "d"]),
        ({"not_tags_any": ("x", "z")}, ["c"]),
        ({"tags": ("y",), "not_tags_any": ("z",)}, ["a"]),
    ],
)
def test_list_by_tags(
    store: SqlStore,
    listed: dict[str, Stack],
    tags: dict[str, tuple[str, ...]],
    expected: list[str],
) -> None:
    query = StackQuery(tenant="t1", sort_key="name", sort_dir="asc", **tags)  # type: ignore[arg-type]
    assert names(store.list_stacks(query)) == expected


def test_list_filters(store: SqlStore, listed: dict[str, Stack]) -> None:
    query = StackQuery(tenant="t1", filters={"name": ["a", "c"]}, sort_key="name", sort_dir="asc")
    assert names(store.list_stacks(query)) == ["a", "c"]
    assert names(store.list_stacks(StackQuery(tenant="t1", filters={"status": "FAILED"}))) == []
    with pytest.raises(InvalidRequest, match=r"filters\.colour: unknown stack filter"):
        store.list_stacks(StackQuery(tenant="t1", filters={"colour": ["red"]}))


def test_list_pages_with_marker_and_limit(store: SqlStore, listed: dict[str, Stack]) -> None:
    first = store.list_stacks(StackQuery(tenant="t1", sort_key="name", sort_dir="asc", limit=2))
    assert names(first) == ["a", "b"]
    rest = store.list_stacks(
        StackQuery(tenant="t1", sort_key="name", sort_dir="asc", marker=first[-1].id)
    )
    assert names(rest) == ["c", "d"]
    down = store.list_stacks(StackQuery(tenant="t1", marker=listed["c"].id, limit=5))
    assert names(down) == ["b", "a"]


def test_list_rejects_bad_paging(store: SqlStore, listed: dict[str, Stack]) -> None:
    with pytest.raises(InvalidRequest, match="marker"):
        store.list_stacks(StackQuery(tenant="t1", marker="nope"))
    with pytest.raises(InvalidRequest, match="sort key 'colour'"):
        store.list_stacks(StackQuery(tenant="t1", sort_key="colour"))
    with pytest.raises(InvalidRequest, match="limit"):
        store.list_stacks(StackQuery(tenant="t1", limit=-1))


def test_over_long_names_are_rejected_alike_everywhere(store: SqlStore) -> None:
    with pytest.raises(InvalidInput, match="name: longer than 255"):
        make_stack(store, name="n" * 256)
    with pytest.raises(InvalidInput, match=r"tags\[0\]: longer than 80"):
        make_stack(store, tags=("t" * 81,))


# -- resources ----------------------------------------------------------------------------------


def test_a_physical_id_that_is_not_text_is_refused_clearly(store: SqlStore) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack))
    key = store.lock_resource(resource.id, "e1", 0, ResourceChanges(action="CREATE"))
    bad = ResourceChanges(physical_resource_id=12345)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="physical_resource_id: must be a string, not int"):
        store.unlock_resource(resource.id, "e1", key, bad)
    assert store.get_resource(resource.id).engine_id == "e1"  # nothing was written


def new_resource(stack: Stack, name: str = "server", **kw: object) -> NewResource:
    return NewResource(
        stack.id, stack.root_id, name, "OS::Nova::Server", stack.raw_template_id, **kw
    )  # type: ignore[arg-type]


def test_resource_lock_protocol(store: SqlStore) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack, requires=(3, 1)))
    assert (resource.atomic_key, resource.engine_id, resource.requires) == (0, None, (1, 3))
    key = store.lock_resource(
        resource.id, "e1", 0, ResourceChanges(action="CREATE", status="IN_PROGRESS")
    )
    assert key == 1
    with pytest.raises(LockConflict, match="locked by engine e1 at atomic key 1"):
        store.lock_resource(resource.id, "e2", 1)
    key = store.update_resource(
        resource.id, key, ResourceChanges(physical_resource_id="vm-1"), engine_id="e1"
    )
    with pytest.raises(LockConflict):
        store.unlock_resource(resource.id, "e2", key)
    key = store.unlock_resource(resource.id, "e1", key, ResourceChanges(status="COMPLETE"))
    got = store.get_resource(resource.id)
    assert (got.engine_id, got.atomic_key, got.action, got.status) == (
        None,
        3,
        "CREATE",
        "COMPLETE",
    )
    assert got.physical_resource_id == "vm-1"
    assert store.find_resources_by_physical_id("vm-1") == [got]


def test_versions_of_one_resource_by_name(store: SqlStore) -> None:
    stack = make_stack(store)
    other = make_stack(store, name="other")
    old = store.create_resource(new_resource(stack))
    new = store.replace_resource(old.id, 0, new_resource(stack))
    store.create_resource(new_resource(stack, name="db"))
    store.create_resource(new_resource(other))
    found = store.find_resources_by_name(stack.id, "server")
    assert [r.id for r in found] == [old.id, new.id]
    assert store.find_resources_by_name(stack.id, "nope") == []


def test_respecting_update_needs_unlocked_row_at_key(store: SqlStore) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack))
    key = store.update_resource(resource.id, 0, ResourceChanges(current_template_id=None))
    assert key == 1
    with pytest.raises(LockConflict, match="expected it unlocked at atomic key 0"):
        store.update_resource(resource.id, 0, ResourceChanges(status="FAILED"))
    store.lock_resource(resource.id, "e1", 1)
    with pytest.raises(LockConflict):
        store.update_resource(resource.id, 2, ResourceChanges(status="FAILED"))
    with pytest.raises(ResourceNotFound):
        store.lock_resource(12345, "e1", 0)


def test_unlock_steals_from_a_dead_engine(store: SqlStore) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack))
    key = store.lock_resource(resource.id, "dead", 0)
    changes = ResourceChanges(status="FAILED", status_reason="Worker went down")
    store.unlock_resource(resource.id, "dead", key, changes)
    assert store.get_resource(resource.id).engine_id is None


def test_a_node_result_is_recorded_with_the_state_that_ends_it(store: SqlStore) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack))
    key = store.lock_resource(resource.id, "e1", 0)
    first = JoinArrival("T", "n1", "n1", {"ref": "vm-1"})
    with pytest.raises(LockConflict):
        store.unlock_resource(resource.id, "e2", key, arrival=first)
    assert store.list_traversal_arrivals("T") == []
    key = store.unlock_resource(
        resource.id, "e1", key, ResourceChanges(status="COMPLETE"), arrival=first
    )
    # Without an event the arrival is recorded for the row's own stack all the same.
    second = JoinArrival("T", "n1", "n1", None)
    store.update_resource(resource.id, key, ResourceChanges(), arrival=second)
    assert store.list_traversal_arrivals("T") == [first, second]
    assert store.delete_arrivals(stack.id) == 2


def test_replacement_links_versions(store: SqlStore) -> None:
    stack = make_stack(store)
    old = store.create_resource(new_resource(stack))
    new = store.replace_resource(old.id, 0, new_resource(stack, requires=(7,)))
    assert new.replaces == old.id
    assert new.name == old.name
    assert new.id != old.id
    stored_old = store.get_resource(old.id)
    assert (stored_old.replaced_by, stored_old.atomic_key) == (new.id, 1)
    assert [r.id for r in store.list_resources(stack.id)] == [old.id, new.id]
    assert [r.id for r in store.list_resources_by_root(stack.id)] == [old.id, new.id]


def test_replacing_a_locked_row_writes_nothing(store: SqlStore) -> None:
    stack = make_stack(store)
    old = store.create_resource(new_resource(stack))
    store.lock_resource(old.id, "e1", 0)
    with pytest.raises(LockConflict):
        store.replace_resource(old.id, 1, new_resource(stack))
    assert [r.id for r in store.list_resources(stack.id)] == [old.id]


def test_resource_of_missing_stack(store: SqlStore) -> None:
    with pytest.raises(StackNotFound):
        store.create_resource(NewResource("nope", "nope", "r", "T", None))


def test_resource_metadata_generation(store: SqlStore) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack))
    key = store.lock_resource(resource.id, "e1", 0)
    # Metadata writes do not wait for the row lock.
    assert store.set_resource_metadata(resource.id, {"a": 1}, 0) == 1
    with pytest.raises(GenerationConflict, match="generation is 1, expected 0"):
        store.set_resource_metadata(resource.id, {"a": 2}, 0)
    got = store.get_resource(resource.id)
    assert (got.metadata, got.metadata_generation, got.atomic_key) == ({"a": 1}, 1, key)


def test_resource_data_with_redaction(store: SqlStore) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack))
    store.set_resource_data(resource.id, "url", "http://x")
    store.set_resource_data(resource.id, "password", "hunter2-secret", redact=True)
    store.set_resource_data(resource.id, "url", "http://y")
    assert store.get_resource_data(resource.id) == {
        "url": "http://y",
        "password": "hunter2-secret",
    }
    assert "hunter2-secret" not in raw_text(store, "SELECT value FROM resource_data")
    assert store.redacted_resource_data_keys(resource.id) == {"password"}
    store.delete_resource_data(resource.id, "url")
    store.delete_resource_data(resource.id, "url")
    assert store.get_resource_data(resource.id) == {"password": "hunter2-secret"}
    with pytest.raises(ResourceNotFound):
        store.set_resource_data(999999, "k", "v")


def test_properties_and_attributes(store: SqlStore) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack))
    assert store.get_resource_properties(resource.id) is None
    store.store_resource_properties(
        resource.id, {"image": "cirros", "admin_pass": "pa55"}, encrypt=True
    )
    store.store_resource_properties(
        resource.id, {"image": "fedora", "admin_pass": "pa55w0rd"}, encrypt=True
    )
    assert store.get_resource_properties(resource.id) == {
        "image": "fedora",
        "admin_pass": "pa55w0rd",
    }
    assert "pa55w0rd" not in raw_text(store, "SELECT data FROM resource_properties_data")
    store.store_resource_attributes(resource.id, {"first_address": "10.0.0.5"})
    assert store.get_resource_attributes(resource.id) == {"first_address": "10.0.0.5"}
    store.store_resource_attributes(resource.id, None)
    assert store.get_resource_attributes(resource.id) is None
    assert raw_text(store, "SELECT COUNT(*) FROM resource_properties_data") == "1"
    with pytest.raises(ResourceNotFound):
        store.get_resource_properties(424242)


def test_deleted_versions_of_a_stack_are_purged_in_one_write(store: SqlStore) -> None:
    stack, other = make_stack(store), make_stack(store, "db")
    gone, kept, elsewhere = (
        store.create_resource(new_resource(s, name=n))
        for s, n in ((stack, "a"), (stack, "b"), (other, "a"))
    )
    done = ResourceChanges(action="DELETE", status="COMPLETE")
    for row in (gone, elsewhere):
        store.update_resource(row.id, row.atomic_key, done)
    running = ResourceChanges(action="DELETE", status="IN_PROGRESS")
    store.update_resource(kept.id, kept.atomic_key, running)
    store.set_resource_data(gone.id, "k", "v")
    assert store.delete_deleted_resources(stack.id) == 1
    assert [row.name for row in store.list_resources(stack.id)] == ["b"]
    assert [row.name for row in store.list_resources(other.id)] == ["a"]
    assert raw_text(store, "SELECT COUNT(*) FROM resource_data") == "0"
    assert store.delete_deleted_resources(stack.id) == 0


def test_delete_resource_takes_its_data(store: SqlStore) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack))
    store.set_resource_data(resource.id, "k", "v")
    store.delete_resource(resource.id)
    store.delete_resource(resource.id)
    with pytest.raises(ResourceNotFound):
        store.get_resource(resource.id)
    assert raw_text(store, "SELECT COUNT(*) FROM resource_data") == "0"


# -- events and joins ---------------------------------------------------------------------------


def test_events_page_by_marker(store: SqlStore) -> None:
    stack = make_stack(store)
    events = [
        store.append_event(NewEvent(stack.id, f"r{i}", "CREATE", "COMPLETE", "done", "T", f"p{i}"))
        for i in range(5)
    ]
    assert store.list_events(EventQuery(stack.id)) == events
    page = store.list_events(EventQuery(stack.id, marker=events[1].id, limit=2))
    assert page == events[2:4]
    assert store.list_events(EventQuery(stack.id, sort_dir="desc", limit=2)) == events[:2:-1][:2]
    assert store.list_events(EventQuery(stack.id, resource_name="r3")) == [events[3]]
    with pytest.raises(InvalidRequest, match="marker"):
        store.list_events(EventQuery(stack.id, marker="nope"))
    with pytest.raises(StackNotFound):
        store.append_event(NewEvent("nope", "r", "CREATE", "COMPLETE"))


def test_prune_events_keeps_newest(store: SqlStore) -> None:
    stack = make_stack(store)
    events = [
        store.append_event(NewEvent(stack.id, f"r{i}", "CREATE", "COMPLETE")) for i in range(6)
    ]
    assert store.prune_events(stack.id, 4) == 2
    assert store.list_events(EventQuery(stack.id)) == events[2:]
    assert store.prune_events(stack.id, 10) == 0


def test_join_log_is_append_only_per_node(store: SqlStore) -> None:
    stack = make_stack(store)
    arrivals = [
        JoinArrival("T1", "5:update", "3:update", {"id": 3, "attrs": {"ip": "10.0.0.1"}}),
        JoinArrival("T1", "5:update", "4:update", None),
        JoinArrival("T1", "6:cleanup", "5:cleanup", 5),
        JoinArrival("T2", "5:update", "3:update", {"id": 3}),
    ]
    for arrival in arrivals:
        store.append_arrival(stack.id, arrival)
    assert store.list_arrivals("T1", "5:update") == arrivals[:2]
    assert store.list_traversal_arrivals("T1") == arrivals[:3]
    assert store.delete_arrivals(stack.id, except_traversal="T2") == 3
    assert store.list_traversal_arrivals("T1") == []
    assert store.list_traversal_arrivals("T2") == arrivals[3:]
    with pytest.raises(StackNotFound):
        store.append_arrival("nope", arrivals[0])


def test_state_change_and_its_event_commit_together(store: SqlStore) -> None:
    stack = make_stack(store)
    resource = store.create_resource(new_resource(stack))
    started = NewEvent(stack.id, "server", "CREATE", "IN_PROGRESS", "started", "OS::Nova::Server")
    key = store.lock_resource(resource.id, "e1", 0, event=started)
    with pytest.raises(LockConflict):
        store.lock_resource(resource.id, "e2", key, event=started)
    done = NewEvent(stack.id, "server", "CREATE", "COMPLETE", "done", "OS::Nova::Server", "vm-1")
    store.unlock_resource(resource.id, "e1", key, ResourceChanges(status="COMPLETE"), event=done)
    events = store.list_events(EventQuery(stack.id))
    assert [(e.resource_status, e.physical_resource_id) for e in events] == [
        ("IN_PROGRESS", None),
        ("COMPLETE", "vm-1"),
    ]
    orphan = NewEvent("no-such-stack", "server", "CREATE", "FAILED")
    with pytest.raises(StackNotFound):
        store.update_resource(resource.id, key + 1, ResourceChanges(status="FAILED"), event=orphan)
    assert store.get_resource(resource.id).status == "COMPLETE"
