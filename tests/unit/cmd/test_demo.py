"""``thermik demo``: the demo stack on the embedded engine, run twice in one state directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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
