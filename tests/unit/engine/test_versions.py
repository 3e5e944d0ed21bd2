"""Choosing the version each template resource converges (Heat's scoring)."""

from __future__ import annotations

from thermik.engine.states import State
from thermik.engine.versions import ResourceVersion, select_versions

LIVE, NEW, OLD = 1, 2, 3


def v(vid: int, name: str, state: str = "CREATE_COMPLETE", **fields: object) -> ResourceVersion:
    return ResourceVersion(vid, name, State.parse(state), **fields)  # type: ignore[arg-type]


def choose(versions: list[ResourceVersion], names: list[str], new: int = NEW, current: int = LIVE):  # type: ignore[no-untyped-def]
    return select_versions(versions, names, new_template_id=new, current_template_id=current)


def test_names_without_a_version_are_missing() -> None:
    selection = choose([v(1, "a", template_id=LIVE)], ["a", "b"])
    assert selection.chosen == {"a": 1}
    assert selection.missing == ("b",)


def test_update_prefers_the_replacement_over_the_replaced_version() -> None:
    versions = [
        v(1, "a", template_id=LIVE, replaced_by=2),
        v(2, "a", template_id=LIVE, replaces=1),
    ]
    assert choose(versions, ["a"]).chosen == {"a": 2}


def test_rollback_returns_to_the_version_converged_to_the_target_template() -> None:
    # Rolling back from template LIVE to template OLD: the replaced version was on OLD.
    versions = [
        v(1, "a", template_id=OLD, replaced_by=2),
        v(2, "a", template_id=LIVE, replaces=1),
    ]
    assert choose(versions, ["a"], new=OLD, current=LIVE).chosen == {"a": 1}


def test_failed_and_deleting_versions_lose() -> None:
    versions = [
        v(1, "a", "UPDATE_FAILED", template_id=NEW),
        v(2, "a", "CREATE_COMPLETE", template_id=LIVE),
        v(3, "b", "DELETE_FAILED", template_id=NEW),
        v(4, "b", "INIT_COMPLETE", template_id=None),
    ]
    assert choose(versions, ["a", "b"]).chosen == {"a": 2, "b": 4}


def test_deleted_versions_are_never_chosen() -> None:
    selection = choose([v(1, "a", "DELETE_COMPLETE", template_id=NEW)], ["a"])
    assert selection.chosen == {}
    assert selection.missing == ("a",)


def test_ties_go_to_the_newer_row() -> None:
    versions = [v(5, "a", template_id=LIVE), v(9, "a", template_id=LIVE)]
    assert choose(versions, ["a"]).chosen == {"a": 9}


def test_deleted_flag() -> None:
    assert v(1, "a", "DELETE_COMPLETE").deleted
    assert not v(1, "a", "DELETE_FAILED").deleted
