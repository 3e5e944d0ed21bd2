"""Showing a stack builds its template's definition once per template, never a stale one."""

from __future__ import annotations

from typing import Any

from tests.unit.orchestration.conftest import CTX, TEMPLATE, create, settle
from thermik.api.boundary import StackRequest, StackUpdate
from thermik.orchestration import Orchestrator
from thermik.orchestration.definitions import StoredDefinitions
from thermik.persistence.values import Stack
from thermik.template.definitions import StackDefinition


def wide(size: int) -> dict[str, Any]:
    resource = {"type": "OS::Heat::TestResource", "properties": {"value": "v"}}
    return {
        "heat_template_version": "2018-08-31",
        "resources": {f"r{n}": resource for n in range(size)},
    }


def test_show_follows_updates(service: Orchestrator) -> None:
    stack = create(service, "s")
    first = settle(service, stack)
    assert first.parameters is not None
    assert first.parameters["word"] == "hello"
    assert settle(service, stack).parameters == first.parameters
    assert len(service.definitions) == 1
    update = StackUpdate(StackRequest(template=TEMPLATE, parameters={"word": "bye"}))
    service.update_stack(CTX, stack, update)
    after = settle(service, stack)
    assert after.parameters is not None
    assert after.parameters["word"] == "bye"
    echo = next(output for output in after.outputs or () if output.key == "echo")
    assert echo.value == "bye"


def test_each_template_is_built_once(service: Orchestrator) -> None:
    built: list[tuple[str, int]] = []

    def build(stack: Stack) -> StackDefinition:
        built.append((stack.name, stack.raw_template_id))
        return service.stored_definition(stack)[1]

    kept = StoredDefinitions(build)
    rows = [service.store.get_stack(create(service, name).id) for name in ("a", "b")]
    for _ in range(3):
        assert [set(kept.of(row).resources) for row in rows] == [set(TEMPLATE["resources"])] * 2
    assert built == [(row.name, row.raw_template_id) for row in rows]


def test_what_is_kept_is_bounded_by_resources(service: Orchestrator) -> None:
    kept = StoredDefinitions(lambda stack: service.stored_definition(stack)[1], resources=10)
    rows = [
        service.store.get_stack(create(service, name, template=wide(size)).id)
        for name, size in (("four", 4), ("five", 5), ("three", 3))
    ]
    assert [len(kept.of(row).resources) for row in rows] == [4, 5, 3]
    # 4 + 5 + 3 > 10: the least recently used (four) went.
    assert len(kept) == 2
    big = service.store.get_stack(create(service, "big", template=wide(12)).id)
    assert len(kept.of(big).resources) == 12
    assert len(kept) == 1
