"""The ``*Changes`` values: KEEP leaves a column alone, None sets it to NULL."""

from __future__ import annotations

from thermik.persistence.resource_values import NO_CHANGES, ResourceChanges
from thermik.persistence.values import NO_STACK_CHANGES, StackChanges, changed_fields


def test_nothing_changes_by_default() -> None:
    assert changed_fields(NO_STACK_CHANGES) == {}
    assert changed_fields(NO_CHANGES) == {}


def test_none_is_a_change_keep_is_not() -> None:
    changes = StackChanges(status="FAILED", prev_raw_template_id=None)
    assert changed_fields(changes) == {"status": "FAILED", "prev_raw_template_id": None}
    assert changed_fields(ResourceChanges(replaced_by=None, requires=(2, 1))) == {
        "replaced_by": None,
        "requires": (2, 1),
    }
