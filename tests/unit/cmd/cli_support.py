"""Running ``thermik`` in tests: in-process through ``main`` and as the console script."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from thermik.cmd.cli import main

TEMPLATE = """\
heat_template_version: 2018-08-31
description: CLI test stack
parameters:
  word: {type: string, default: hello}
resources:
  first:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: word}
  note:
    type: OS::Heat::Value
    properties:
      value: {get_file: files/note.txt}
  second:
    type: OS::Heat::TestResource
    properties:
      value: {get_attr: [first, output]}
outputs:
  echo:
    description: What second stored
    value: {get_attr: [second, output]}
  note:
    value: {get_attr: [note, value]}
"""


@dataclasses.dataclass
class Result:
    """What a run printed and returned."""

    status: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def write_project(root: Path) -> Path:
    """A template beside a files/ directory and an environment in another directory."""
    (root / "files").mkdir(parents=True)
    (root / "files" / "note.txt").write_text("from a file", encoding="utf-8")
    (root / "envs").mkdir()
    (root / "envs" / "env.yaml").write_text("parameters:\n  word: from-env\n", encoding="utf-8")
    template = root / "stack.yaml"
    template.write_text(TEMPLATE, encoding="utf-8")
    return template


def config_file(root: Path) -> Path:
    """A config file putting the state directory under ``root``, with the engine inside each
    command (these tests run ``thermik`` in the test's process; the local engine daemon has
    its own tests, in real processes, in tests/e2e/test_local_daemon.py)."""
    path = root / "thermik.conf"
    path.write_text(
        # [DEFAULT] last: tests append options of that section.
        f"[engine]\nlocal_daemon = false\n[DEFAULT]\nstate_dir = {root / 'state'}\n",
        encoding="utf-8",
    )
    return path


class Cli:
    """``thermik`` with a private state directory."""

    def __init__(self, root: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.config = config_file(root)
        self.capsys = capsys

    def __call__(self, *args: str) -> Result:
        self.capsys.readouterr()
        status = main(["--config-file", str(self.config), *args])
        out, err = self.capsys.readouterr()
        return Result(status, out, err)


def run_script(config: Path, *args: str, cwd: Path) -> Result:
    """The installed ``thermik`` console script in a subprocess."""
    script = Path(sys.executable).parent / "thermik"
    done = subprocess.run(
        [str(script), "--config-file", str(config), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )
    return Result(done.returncode, done.stdout, done.stderr)
