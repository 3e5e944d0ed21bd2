"""``thermik stack graph``: DOT to a file or stdout, SVG with Graphviz, a clear error without."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.unit.cmd.cli_support import Cli, write_project


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    created = Cli(tmp_path, capsys)
    template = write_project(tmp_path / "project")
    assert created("stack", "create", "-t", str(template), "--wait", "web").status == 0
    return created


def test_dot_on_stdout(cli: Cli) -> None:
    drawn = cli("stack", "graph", "web", "-o", "-")
    assert drawn.status == 0, drawn.err
    assert drawn.out.startswith('digraph "web" {')
    assert '"first" -> "second";' in drawn.out
    # One line per fact in each box: Graphviz's \n escape, not a literal backslash.
    assert '[label="first\\nOS::Heat::TestResource\\nCREATE_COMPLETE"' in drawn.out


def test_svg_without_graphviz_is_one_clear_error(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    for args in (("--format", "svg"), ("-o", str(tmp_path / "web.svg"))):
        drawn = cli("stack", "graph", "web", *args)
        assert (drawn.status, drawn.out) == (1, "")
        assert drawn.err.startswith("ERROR: Writing SVG needs Graphviz's dot command")
        assert len(drawn.err.splitlines()) == 1
    assert not (tmp_path / "web.svg").exists()
    dot = tmp_path / "web.dot"
    drawn = cli("stack", "graph", "web", "-o", str(dot))
    assert (drawn.status, drawn.out) == (0, f"{dot}\n")
    assert "no SVG written" in drawn.err
    assert dot.read_text().startswith('digraph "web" {')


def test_svg_with_graphviz(cli: Cli, tmp_path: Path) -> None:
    if shutil.which("dot") is None:
        # CI installs Graphviz (tools/run-tests.sh): there its absence is a failure.
        if os.environ.get("THERMIK_REQUIRE_SERVICES") == "1":
            pytest.fail("THERMIK_REQUIRE_SERVICES=1 but Graphviz's dot is not installed")
        pytest.skip("Graphviz is not installed")
    svg = tmp_path / "web.svg"
    drawn = cli("stack", "graph", "web", "-o", str(svg))
    assert drawn.status == 0, drawn.err
    text = svg.read_text()
    assert "<svg" in text
    assert ">OS::Heat::TestResource</text>" in text
