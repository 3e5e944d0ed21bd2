"""Two engines on one database (two ``thermik`` commands): an operation one engine runs is
refused clearly by the other, never taken for "nothing to cancel", and nothing changes."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import falcon.testing
import pytest

from tests.unit.orchestration.conftest import CTX, create
from thermik.api.app import make_app
from thermik.api.boundary import StackAction, StackRequest, StackUpdate
from thermik.conf.settings import ApiSettings, LimitSettings, Settings
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


def test_a_refusal_is_one_log_line_without_traceback(
    service: Orchestrator, other: Orchestrator, caplog: pytest.LogCaptureFixture
) -> None:
    """The 409 for a stack driven elsewhere is a client's answer, not a bug: one INFO line."""
    stack = create(service, template=SLOW)
    service.update_stack(
        CTX, stack, StackUpdate(StackRequest(parameters={"word": "after"}), existing=True)
    )
    client = falcon.testing.TestClient(make_app(other, ApiSettings(), limits=LimitSettings()))
    requests = {
        "cancel": ("POST", "/actions", {"cancel_update": None}),
        "update": ("PATCH", "", {"parameters": {"word": "again"}}),
        "delete": ("DELETE", "", None),
    }
    for what, (method, suffix, body) in requests.items():
        caplog.clear()
        with caplog.at_level(logging.DEBUG):
            result = client.simulate_request(
                method, f"/v1/{CTX.tenant}/stacks/{stack.path}{suffix}", json=body
            )
        assert result.status_code == 409, (what, result.text)
        assert [r for r in caplog.records if r.exc_info or r.levelno > logging.INFO] == [], what
        assert "Traceback" not in caplog.text, what
        lines = [r.getMessage() for r in caplog.records if r.name == "thermik.api.faults"]
        assert len(lines) == 1, (what, lines)
        assert " 409 LeaseConflict: Stack s1 is UPDATE_IN_PROGRESS in another engine" in lines[0]
    service.stack_action(CTX, stack, StackAction.CANCEL_WITHOUT_ROLLBACK)
