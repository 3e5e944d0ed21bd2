"""A child stack's failure reason becomes its parent resource's failure, as in Heat."""

from __future__ import annotations

from thermik.errors import Failure
from thermik.resources.nested_stack import child_failure


def parent_reason(action: str, child_reason: str, name: str = "child") -> str:
    return str(Failure.from_exception(child_failure(action, child_reason)).of_resource(name))


def test_a_resource_failure_in_the_child_is_rerooted_under_the_parent_resource() -> None:
    child = "Resource CREATE failed: ValueError: resources.inner: Test Resource failed inner"
    assert parent_reason("CREATE", child) == (
        "ValueError: resources.child.resources.inner: Test Resource failed inner"
    )


def test_a_group_member_keeps_its_index() -> None:
    child = "Resource CREATE failed: ValueError: resources[1]: Test Resource failed 1"
    assert parent_reason("CREATE", child, "group") == (
        "ValueError: resources.group.resources[1]: Test Resource failed 1"
    )


def test_two_levels_down_the_path_grows_again() -> None:
    child = "Resource DELETE failed: Exception: resources.mid.resources.inner: boom"
    assert parent_reason("DELETE", child) == (
        "Exception: resources.child.resources.mid.resources.inner: boom"
    )


def test_any_other_child_reason_is_the_message_without_a_type() -> None:
    assert parent_reason("CREATE", "Timed out") == "resources.child: Timed out"
    assert parent_reason("UPDATE", "Stack UPDATE cancelled") == (
        "resources.child: Stack UPDATE cancelled"
    )
    # A failure of another action than the one the parent asked for is no resource failure.
    other = "Resource CREATE failed: ValueError: resources.inner: x"
    assert parent_reason("UPDATE", other) == f"resources.child: {other}"
