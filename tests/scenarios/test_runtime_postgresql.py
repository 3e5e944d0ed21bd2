"""The runtime on PostgreSQL: the same convergence, on a server database with several writers.

Fails (rather than skips) when ``THERMIK_REQUIRE_SERVICES=1`` and the server is unreachable.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import dbservers
from tests.contract.conftest import require_backend
from tests.scenarios.runtime_harness import Harness, harness_on, res, wait_until
from thermik.conf.settings import DatabaseSettings
from thermik.engine.states import Action
from thermik.persistence import migration
from thermik.persistence.database import Database


@pytest.fixture(scope="module")
def postgresql_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A migrated scratch database on the PostgreSQL server, for this module."""
    require_backend("postgresql")
    directory: Path = tmp_path_factory.mktemp("postgresql")
    with dbservers.scratch_database("postgresql", directory) as url:
        db = Database(DatabaseSettings(url))
        migration.upgrade(db)
        db.dispose()
        yield url


@pytest.fixture
def pg(postgresql_url: str) -> Iterator[Harness]:
    """The runtime on PostgreSQL."""
    with harness_on(postgresql_url) as started:
        yield started


def test_create_update_replace_and_delete(pg: Harness) -> None:
    dependent = {
        "type": "OS::Heat::TestResource",
        "properties": {"value": {"get_attr": ["a", "output"]}},
    }
    stack_id = pg.create(
        {"a": res("one", update_replace=True), "b": dependent, "c": res("c")}, name="pg1"
    )
    assert pg.value_of(stack_id, "b") == "one"
    old = pg.live(stack_id)["a"].id
    template = pg.template({"a": res("two", update_replace=True), "b": dependent, "c": res("c2")})
    assert pg.run(stack_id, Action.UPDATE, template) == "UPDATE_COMPLETE", pg.reason(stack_id)
    live = pg.live(stack_id)
    assert live["a"].id != old
    assert pg.value_of(stack_id, "b") == "two"
    assert pg.value_of(stack_id, "c") == "c2"
    assert pg.locked(stack_id) == []
    assert pg.run(stack_id, Action.DELETE) == "DELETE_COMPLETE"


def test_a_failure_rolls_back(pg: Harness) -> None:
    stack_id = pg.stack({"ok": res(), "bad": res(fail=True)}, name="pg2", disable_rollback=False)
    assert pg.run(stack_id, Action.CREATE) == "ROLLBACK_COMPLETE", pg.reason(stack_id)
    assert pg.rows(stack_id) == []


def test_wide_stack_with_many_writers(pg: Harness) -> None:
    stack_id = pg.create({f"r{i}": res(str(i)) for i in range(60)}, name="pg3")
    assert set(pg.states(stack_id).values()) == {"CREATE_COMPLETE"}
    assert pg.run(stack_id, Action.CHECK) == "CHECK_COMPLETE"


def test_cancel_and_signals(pg: Harness) -> None:
    waiting = {
        "handle": {"type": "OS::Heat::WaitConditionHandle"},
        "wait": {
            "type": "OS::Heat::WaitCondition",
            "properties": {"handle": {"get_resource": "handle"}, "count": 1, "timeout": 30},
        },
    }
    stack_id = pg.stack(waiting, name="pg4")
    pg.converge(stack_id, Action.CREATE)
    wait_until(lambda: pg.states(stack_id).get("wait") == "CREATE_IN_PROGRESS")
    pg.runtime.signal(stack_id, "handle", {"data": "hello"})
    assert pg.wait(stack_id) == "CREATE_COMPLETE", pg.reason(stack_id)
    slow = pg.stack({"a": res(wait_secs=30)}, name="pg5")
    pg.converge(slow, Action.CREATE)
    wait_until(lambda: pg.states(slow).get("a") == "CREATE_IN_PROGRESS")
    pg.runtime.cancel(slow, rollback=False)
    assert pg.wait(slow) == "CREATE_FAILED"
    assert pg.locked(slow) == []
