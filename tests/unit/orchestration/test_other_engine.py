"""Two engines on one database (two ``thermik`` commands): an operation one engine runs is
refused clearly by the other, never taken for "nothing to cancel", and nothing changes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.unit.orchestration.conftest import CTX, create
from thermik.api.boundary import StackAction, StackRequest, StackUpdate
from thermik.conf.settings import Settings
from thermik.errors import LeaseConflict
from thermik.orchestration import Orchestrator
from thermik.service import build_orchestration_service

SLOW: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "parameters": {"word": {"type": "string", "default": "before"}},
    "resources": {
        "sleeper": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_param": "word"}, "action_wait_secs": {"update": 60}},
        }
    },
}


@pytest.fixture
def other(settings: Settings) -> Iterator[Orchestrator]:
    """A second engine on the same database, as a second ``thermik`` command builds it."""
    built = build_orchestration_service(settings)
    try:
        yield built
    finally:
        built.close()


def test_another_engines_update_is_refused_clearly(
    service: Orchestrator, other: Orchestrator
) -> None:
    stack = create(service, template=SLOW)
    update = StackUpdate(StackRequest(parameters={"word": "after"}), existing=True)
    service.update_stack(CTX, stack, update)
    attempts = {
        "cancel": lambda: other.stack_action(CTX, stack, StackAction.CANCEL_UPDATE),
        "cancel without rollback": lambda: other.stack_action(
            CTX, stack, StackAction.CANCEL_WITHOUT_ROLLBACK
        ),
        "update": lambda: other.update_stack(CTX, stack, update),
        "delete": lambda: other.delete_stack(CTX, stack),
    }
    for what, attempt in attempts.items():
        with pytest.raises(LeaseConflict) as caught:
            attempt()
        assert caught.value.message.startswith(
            "Stack s1 is UPDATE_IN_PROGRESS in another engine (engine "
        ), what
    view = other.show_stack(CTX, stack, resolve_outputs=False)
    assert (view.action, view.status) == ("UPDATE", "IN_PROGRESS")
    service.stack_action(CTX, stack, StackAction.CANCEL_WITHOUT_ROLLBACK)
