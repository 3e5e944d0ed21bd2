"""Stack actions refused for the stack's state: one line naming the stack, nothing changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.cmd.cli_support import Cli, write_project


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    created = Cli(tmp_path, capsys)
    template = write_project(tmp_path / "project")
    assert created("stack", "create", "-t", str(template), "--wait", "web").status == 0
    return created


def test_refused_actions_name_the_stack_and_change_nothing(cli: Cli) -> None:
    refusals = {
        ("stack", "resume", "web"): "Stack web is CREATE_COMPLETE: it cannot be resumed",
        ("stack", "cancel", "web"): "Cancelling update when stack is CREATE_COMPLETE",
        ("stack", "cancel", "--no-rollback", "web"): "Cancelling the operation when stack",
    }
    for args, message in refusals.items():
        refused = cli(*args)
        assert (refused.status, refused.out) == (1, ""), args
        assert refused.err.startswith(f"ERROR: {message}"), refused.err
        assert len(refused.err.splitlines()) == 1
    assert cli("stack", "suspend", "web", "--wait").status == 0
    again = cli("stack", "suspend", "web")
    assert again.err == "ERROR: Stack web is SUSPEND_COMPLETE: it cannot be suspended\n"
    shown = cli("stack", "show", "web", "-f", "value", "-c", "stack_status")
    assert shown.out == "SUSPEND_COMPLETE\n"
    events = cli("event", "list", "web", "-f", "value", "-c", "resource_status").out.split()
    assert events.count("SUSPEND_IN_PROGRESS") == 4
