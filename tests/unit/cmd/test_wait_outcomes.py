"""How ``--wait`` ends: a rolled-back create or update fails, a cancel's rollback does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.cmd.cli_support import Cli

TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  word: {type: string, default: one}
  fail: {type: boolean, default: false}
  secs: {type: number, default: 0}
resources:
  first:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: word}
      action_wait_secs: {update: {get_param: secs}}
  second:
    type: OS::Heat::TestResource
    depends_on: first
    properties:
      value: {get_param: word}
      fail: {get_param: fail}
outputs:
  word: {value: {get_attr: [first, output]}}
"""


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path, capsys)


@pytest.fixture
def template(tmp_path: Path) -> Path:
    path = tmp_path / "stack.yaml"
    path.write_text(TEMPLATE, encoding="utf-8")
    return path


def status(cli: Cli, name: str) -> str:
    return cli("stack", "show", name, "-f", "value", "-c", "stack_status").out.strip()


def test_a_rolled_back_update_fails_the_wait(cli: Cli, template: Path) -> None:
    assert cli("stack", "create", "-t", str(template), "--wait", "web").status == 0
    update = ("stack", "update", "web", "--existing", "--rollback", "enabled", "--wait")
    failed = cli(*update, "--parameter", "word=two", "--parameter", "fail=true")
    assert failed.status == 1
    last = failed.err.splitlines()[-1]
    assert last.startswith("ERROR: Stack web UPDATE_FAILED: Resource UPDATE failed")
    assert last.endswith("(then ROLLBACK_COMPLETE)")
    assert "Traceback" not in failed.err
    assert status(cli, "web") == "ROLLBACK_COMPLETE"
    word = cli("output", "show", "web", "word", "-f", "value", "-c", "output_value")
    assert word.out == "one\n"


def test_a_rolled_back_create_fails_the_wait(cli: Cli, template: Path) -> None:
    failed = cli(
        "stack",
        "create",
        "-t",
        str(template),
        "--parameter",
        "fail=true",
        "--enable-rollback",
        "--wait",
        "web",
    )
    assert failed.status == 1
    assert failed.err.splitlines()[-1].startswith("ERROR: Stack web CREATE_FAILED: ")
    assert status(cli, "web") == "ROLLBACK_COMPLETE"


def test_cancelling_with_rollback_succeeds(cli: Cli, template: Path) -> None:
    assert cli("stack", "create", "-t", str(template), "--wait", "web").status == 0
    started = cli(
        "stack", "update", "web", "--existing", "--parameter", "word=two", "--parameter", "secs=60"
    )
    assert started.status == 0, started.err
    cancelled = cli("stack", "cancel", "web", "--wait", "-f", "value", "-c", "Stack Status")
    assert (cancelled.status, cancelled.out) == (0, "ROLLBACK_COMPLETE\n"), cancelled.err
