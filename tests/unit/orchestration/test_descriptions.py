"""Stack listings show each stack's current template description, read once per template."""

from __future__ import annotations

from tests.unit.orchestration.conftest import CTX, TEMPLATE, create, settle
from thermik.api.boundary import ListQuery, StackRequest, StackUpdate
from thermik.orchestration import Orchestrator
from thermik.orchestration.descriptions import TemplateDescriptions


def descriptions(service: Orchestrator) -> dict[str, object]:
    return {
        view.identity.name: view.description
        for view in service.list_stacks(CTX, ListQuery()).items
    }


def test_listing_follows_updates(service: Orchestrator) -> None:
    first = create(service, "first")
    create(service, "second", template={**TEMPLATE, "description": "Another"})
    assert descriptions(service) == {"first": "A small stack", "second": "Another"}
    assert descriptions(service) == {"first": "A small stack", "second": "Another"}
    changed = {**TEMPLATE, "description": "Changed"}
    service.update_stack(CTX, first, StackUpdate(StackRequest(template=changed)))
    assert settle(service, first).status == "COMPLETE"
    assert descriptions(service) == {"first": "Changed", "second": "Another"}


def test_only_the_most_recent_are_kept(service: Orchestrator) -> None:
    names = ["a", "b", "c"]
    stacks = [create(service, name) for name in names]
    kept = TemplateDescriptions(service.store, size=2)
    rows = [service.store.get_stack(stack.id) for stack in stacks]
    assert [kept.of(row) for row in rows] == ["A small stack"] * 3
    assert len(kept) == 2
    assert [row in kept for row in rows] == [False, True, True]
