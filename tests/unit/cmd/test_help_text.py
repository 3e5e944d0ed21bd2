"""Every ``--help`` reads as plain text in a terminal: no reStructuredText markup."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from cliff.commandmanager import CommandManager

from thermik.cmd.cli import main
from thermik.cmd.helptext import plain

#: What reStructuredText leaves visible when printed as it is.
MARKUP = re.compile(r"``|:(?:class|func|meth|mod|attr|data|exc|ref|doc):|\.\. code-block::")
SCRIPTS = ("thermik", "thermik-api", "thermik-engine", "thermik-manage")
COMMANDS = sorted(name for name, _ in CommandManager("thermik.cli"))


def _assert_plain(text: str, where: str) -> None:
    found = MARKUP.search(text)
    assert found is None, f"{where}: reStructuredText {found.group()!r} in:\n{text}"


@pytest.mark.parametrize("command", COMMANDS)
def test_command_help_is_plain(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*command.split(), "--help"]) == 0
    out = capsys.readouterr().out
    assert command.rsplit(maxsplit=1)[-1] in out
    _assert_plain(out, f"thermik {command} --help")


@pytest.mark.parametrize("script", SCRIPTS)
def test_script_help_is_plain(script: str) -> None:
    executable = Path(sys.executable).parent / script
    done = subprocess.run(
        [str(executable), "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout
    _assert_plain(done.stdout, f"{script} --help")


def test_plain_keeps_the_words() -> None:
    text = (
        "Runs ``thermik-api`` (see :class:`~thermik.api.App` and :func:`thermik.service.build`)"
        " with `flags`.\n\nExample::\n\n.. code-block:: console\n\n    thermik --help\n"
    )
    assert plain(text) == (
        "Runs thermik-api (see App and thermik.service.build) with flags.\n\n"
        "Example:\n\n    thermik --help\n"
    )
