"""``thermik demo``: the demo stack on the embedded engine, run twice in one state directory, and
in a state directory of its own unless told otherwise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.cmd.cli_support import config_file, write_project
from thermik.cmd.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_demo_creates_the_stack_and_shows_outputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ("demo", "--state-dir", str(tmp_path), "--parameter", "step_seconds=0", "-f", "json")
    status, out, err = run(capsys, *args)
    assert status == 0, err
    assert "Creating stack demo" in err
    assert "6/6 resources" in err
    document = json.loads(out)
    assert document["stack_status"] == "CREATE_COMPLETE"
    found = {o["output_key"]: o["output_value"] for o in document["outputs"]}
    assert found["summary"] == (
        '"Hello from Thermik" runs on server on demo-network with database on demo-network'
    )
    assert found["password_length"] == 16
    status, out, err = run(capsys, *args)
    assert status == 0, err
    assert "Deleting the previous demo stack demo" in err
    assert json.loads(out)["stack_status"] == "CREATE_COMPLETE"


def test_demo_never_touches_the_users_stacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    template = write_project(tmp_path / "project")
    status, _, err = run(capsys, "stack", "create", "-t", str(template), "--wait", "demo")
    assert status == 0, err
    status, out, err = run(capsys, "demo", "--parameter", "step_seconds=0", "-f", "json")
    assert status == 0, err
    assert "Deleting the previous demo stack" not in err
    assert json.loads(out)["description"] != "CLI test stack"
    assert (tmp_path / "state" / "thermik" / "demo" / "thermik.sqlite").is_file()
    status, out, err = run(capsys, "stack", "show", "demo", "-f", "json")
    assert status == 0, err
    mine = json.loads(out)
    assert (mine["description"], mine["stack_status"]) == ("CLI test stack", "CREATE_COMPLETE")


def test_demo_with_a_config_file_uses_its_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    conf = str(config_file(tmp_path))
    args = ("--config-file", conf, "demo", "--parameter", "step_seconds=0", "-f", "json")
    status, _, err = run(capsys, *args)
    assert status == 0, err
    status, out, err = run(capsys, "--config-file", conf, "stack", "show", "demo", "-f", "json")
    assert (status, json.loads(out)["stack_status"]) == (0, "CREATE_COMPLETE"), err
    assert not (tmp_path / "xdg").exists()
