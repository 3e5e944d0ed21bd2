"""The engine's memory of which resources each stored template retains on delete."""

from __future__ import annotations

from tests.scenarios.runtime_harness import HOT
from thermik.actors.retention import Policies, Retention, read_policies, read_retained
from thermik.persistence.store import Store
from thermik.resources.context import StackIdentity
from thermik.template import Template, build_stack

IDENTITY = StackIdentity("id", "s", "tenant")
RESOURCES = {
    "kept": {"type": "OS::Heat::None", "deletion_policy": {"get_param": "policy"}},
    "gone": {"type": "OS::Heat::None"},
    "external": {"type": "OS::Heat::None", "external_id": "x"},
}
DOCUMENT = {
    "heat_template_version": HOT,
    "parameters": {"policy": {"type": "string", "default": "Delete"}},
    "resources": RESOURCES,
}


def test_a_stored_template_is_read_with_its_environment(store: Store) -> None:
    template_id = store.store_raw_template(DOCUMENT, {"parameters": {"policy": "retain"}}, {})
    assert read_retained(store, template_id, IDENTITY) == {"kept", "external"}


def test_the_snapshot_policy_is_read_beside_retain(store: Store) -> None:
    template_id = store.store_raw_template(DOCUMENT, {"parameters": {"policy": "snapshot"}}, {})
    assert read_policies(store, template_id, IDENTITY) == {
        "kept": "Snapshot",
        "external": "Retain",
    }
    assert read_retained(store, template_id, IDENTITY) == {"external"}


def test_answers_are_read_once_and_noted_from_built_definitions() -> None:
    reads: list[int] = []

    def read(template_id: int) -> Policies:
        reads.append(template_id)
        return {f"r{template_id}": "Retain", "s": "Snapshot"}

    retention = Retention(limit=2)
    retention.note(1, build_stack(Template.from_document(DOCUMENT)))
    assert retention.retained(1, lambda: read(1)) == {"external"}
    assert retention.retained(2, lambda: read(2)) == {"r2"}
    assert retention.policies(2, lambda: read(2)) == {"r2": "Retain", "s": "Snapshot"}
    assert reads == [2]
    retention.retained(3, lambda: read(3))  # the least recently asked (1) is forgotten
    assert retention.retained(1, lambda: read(1)) == {"r1"}
    assert reads == [2, 3, 1]
