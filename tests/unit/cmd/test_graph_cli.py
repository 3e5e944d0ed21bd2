"""``thermik stack graph``: DOT to a file or stdout, SVG, PNG or PDF with Graphviz (the format
from ``--format`` or the output's suffix), a clear error without Graphviz or for a suffix that
names no format."""

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


def needs_graphviz() -> None:
    if shutil.which("dot") is None:
        # CI installs Graphviz (tools/run-tests.sh): there its absence is a failure.
        if os.environ.get("THERMIK_REQUIRE_SERVICES") == "1":
            pytest.fail("THERMIK_REQUIRE_SERVICES=1 but Graphviz's dot is not installed")
        pytest.skip("Graphviz is not installed")


def test_svg_with_graphviz(cli: Cli, tmp_path: Path) -> None:
    needs_graphviz()
    svg = tmp_path / "web.svg"
    drawn = cli("stack", "graph", "web", "-o", str(svg))
    assert drawn.status == 0, drawn.err
    text = svg.read_text()
    assert "<svg" in text
    assert ">OS::Heat::TestResource</text>" in text


#: What each format's file starts with.
MAGIC = {
    "web.dot": b'digraph "web" {',
    "web.gv": b'digraph "web" {',
    "web.svg": b"<?xml",
    "web.png": b"\x89PNG\r\n\x1a\n",
    "web.pdf": b"%PDF-",
    "WEB.PNG": b"\x89PNG\r\n\x1a\n",
}


@pytest.mark.parametrize("name", MAGIC)
def test_format_from_the_output_suffix(cli: Cli, tmp_path: Path, name: str) -> None:
    needs_graphviz()
    target = tmp_path / name
    drawn = cli("stack", "graph", "web", "-o", str(target))
    assert (drawn.status, drawn.out.splitlines()[0]) == (0, str(target)), drawn.err
    assert target.read_bytes().startswith(MAGIC[name])


@pytest.mark.parametrize("fmt", ["png", "pdf"])
def test_format_option_names_the_default_file(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    needs_graphviz()
    monkeypatch.chdir(tmp_path)
    drawn = cli("stack", "graph", "web", "--format", fmt)
    assert (drawn.status, drawn.out) == (0, f"web.{fmt}\n"), drawn.err
    assert (tmp_path / f"web.{fmt}").read_bytes().startswith(MAGIC[f"web.{fmt}"])


@pytest.mark.parametrize("name", ["web.jpg", "web", "web.png.txt"])
def test_a_suffix_naming_no_format_is_refused(cli: Cli, tmp_path: Path, name: str) -> None:
    target = tmp_path / name
    drawn = cli("stack", "graph", "web", "-o", str(target))
    assert (drawn.status, drawn.out) == (1, "")
    (line,) = drawn.err.splitlines()
    suffix = Path(name).suffix
    assert (f"suffix '{suffix}'" if suffix else "no suffix") in line
    assert ".dot, .gv, .svg, .png, .pdf (dot, svg, png, pdf)" in line
    assert not target.exists()


def test_format_and_suffix_must_agree(cli: Cli, tmp_path: Path) -> None:
    target = tmp_path / "web.png"
    drawn = cli("stack", "graph", "web", "-o", str(target), "--format", "svg")
    assert drawn.status == 1
    assert "the suffix '.png' is png, not the --format svg" in drawn.err
    assert not target.exists()
    text = tmp_path / "web.txt"
    drawn = cli("stack", "graph", "web", "-o", str(text), "--format", "dot")
    assert drawn.status == 0, drawn.err
    assert text.read_text().startswith('digraph "web" {')


@pytest.mark.parametrize("fmt", ["png", "pdf"])
def test_rendered_formats_without_graphviz_are_one_clear_error(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    target = tmp_path / f"web.{fmt}"
    drawn = cli("stack", "graph", "web", "-o", str(target))
    assert (drawn.status, drawn.out) == (1, "")
    assert drawn.err == (
        f"ERROR: Writing {fmt.upper()} needs Graphviz's dot command, which is not on PATH: "
        "install Graphviz (e.g. apt install graphviz), or write DOT with --format dot\n"
    )
    assert not target.exists()
