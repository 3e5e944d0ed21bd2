"""``thermik stack ...`` and friends, in-process, on a private embedded engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.cmd.cli_support import Cli, write_project


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path, capsys)


@pytest.fixture
def template(tmp_path: Path) -> Path:
    return write_project(tmp_path / "project")


def outputs(document: dict[str, object]) -> dict[str, object]:
    found = document["outputs"]
    assert isinstance(found, list)
    return {o["output_key"]: o["output_value"] for o in found}


def test_create_wait_show_update_delete(cli: Cli, template: Path) -> None:
    env = template.parent / "envs" / "env.yaml"
    created = cli("stack", "create", "-t", str(template), "-e", str(env), "--wait", "web")
    assert created.status == 0, created.err
    assert "CREATE_COMPLETE" in created.out
    assert "[web]: CREATE_IN_PROGRESS  Stack CREATE started" in created.err
    assert "[first]: CREATE_COMPLETE" in created.err
    assert "] 3/3 resources" in created.err
    shown = cli("stack", "show", "web", "-f", "json")
    assert shown.status == 0, shown.err
    document = shown.json()
    assert (document["stack_name"], document["stack_status"]) == ("web", "CREATE_COMPLETE")
    assert outputs(document) == {"echo": "from-env", "note": "from a file"}
    assert {o["description"] for o in document["outputs"]} == {
        "What second stored",
        "No description given",
    }
    assert document["parameters"]["word"] == "from-env"
    assert "template_description" not in document
    updated = cli(
        "stack", "update", "web", "--existing", "--parameter", "word=again", "--wait", "-f", "json"
    )
    assert updated.status == 0, updated.err
    assert updated.json()["stack_status"] == "UPDATE_COMPLETE"
    assert outputs(updated.json())["echo"] == "again"
    deleted = cli("stack", "delete", "--yes", "--wait", "web")
    assert deleted.status == 0, deleted.err
    assert "DELETE_COMPLETE" in deleted.err
    gone = cli("stack", "show", "web")
    assert (gone.status, gone.out) == (1, "")
    assert gone.err == "ERROR: The Stack (web) could not be found.\n"


def test_listing_commands(cli: Cli, template: Path) -> None:
    assert cli("stack", "create", "-t", str(template), "--wait", "web").status == 0
    listed = cli("stack", "list", "-f", "json").json()
    assert [(s["Stack Name"], s["Stack Status"]) for s in listed] == [("web", "CREATE_COMPLETE")]
    resources = cli("resource", "list", "web", "-f", "json").json()
    assert sorted(r["resource_name"] for r in resources) == ["first", "note", "second"]
    first = cli("resource", "show", "web", "first", "-f", "json").json()
    assert (first["resource_status"], first["required_by"]) == ("CREATE_COMPLETE", ["second"])
    events = cli("event", "list", "web", "-f", "json").json()
    assert events[-1]["resource_status"] == "CREATE_COMPLETE"
    assert events[-1]["resource_name"] == "web"
    only = cli("event", "list", "web", "--resource", "first", "-f", "json").json()
    assert {e["resource_name"] for e in only} == {"first"}
    keys = cli("output", "list", "web", "-f", "value", "-c", "output_key").out.split()
    assert keys == ["echo", "note"]
    echo = cli("output", "show", "web", "echo", "-f", "json").json()
    assert (echo["output_key"], echo["output_value"]) == ("echo", "hello")
    value = cli("output", "show", "web", "echo", "-f", "value", "-c", "output_value")
    assert value.out == "hello\n"
    shown = cli("template", "show", "web", "-f", "json").json()
    assert shown["description"] == "CLI test stack"
    assert cli("stack", "show", "web").out.count("stack_status") == 2


def test_actions_snapshots_and_graph(cli: Cli, template: Path, tmp_path: Path) -> None:
    assert cli("stack", "create", "-t", str(template), "--wait", "web").status == 0
    suspended = cli("stack", "suspend", "web", "--wait", "-f", "json")
    assert suspended.status == 0, suspended.err
    assert suspended.json()[0]["Stack Status"] == "SUSPEND_COMPLETE"
    resumed = cli("stack", "resume", "web", "--wait", "-f", "json")
    assert resumed.json()[0]["Stack Status"] == "RESUME_COMPLETE"
    checked = cli("stack", "check", "web", "--wait", "-f", "json")
    assert checked.json()[0]["Stack Status"] == "CHECK_COMPLETE"
    snapshot = cli("stack", "snapshot", "create", "web", "--name", "s", "--wait", "-f", "json")
    assert snapshot.status == 0, snapshot.err
    snapshot_id = snapshot.json()["id"]
    listed = cli("stack", "snapshot", "list", "web", "-f", "json").json()
    assert [s["id"] for s in listed] == [snapshot_id]
    assert cli("stack", "snapshot", "delete", "web", snapshot_id).status == 0
    graph = tmp_path / "web.dot"
    drawn = cli("stack", "graph", "web", "-o", str(graph))
    assert drawn.status == 0, drawn.err
    dot = graph.read_text()
    assert '"first" -> "second";' in dot
    assert "SNAPSHOT_COMPLETE" in dot
    cancel = cli("stack", "cancel", "web")
    assert cancel.status == 1
    assert cancel.err.startswith("ERROR: Cancelling update when stack is SNAPSHOT_COMPLETE")


def test_dry_runs_change_nothing(cli: Cli, template: Path) -> None:
    preview = cli("stack", "create", "-t", str(template), "--dry-run", "web", "-f", "json")
    assert preview.status == 0, preview.err
    assert sorted(r["resource_name"] for r in preview.json()["resources"]) == [
        "first",
        "note",
        "second",
    ]
    assert cli("stack", "list", "-f", "json").json() == []
    assert cli("stack", "create", "-t", str(template), "--wait", "web").status == 0
    changes = cli(
        "stack",
        "update",
        "web",
        "-t",
        str(template),
        "--parameter",
        "word=x",
        "--dry-run",
        "-f",
        "json",
    )
    assert changes.status == 0, changes.err
    assert [r["resource_name"] for r in changes.json()["updated"]] == ["first"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("stack", "create", "-t", "missing.yaml", "x"), "ERROR: cannot read file://"),
        (("stack", "show", "nope"), "ERROR: The Stack (nope) could not be found."),
        (
            ("stack", "create", "-t", "{template}", "--parameter", "nope=1", "x"),
            "ERROR: The Parameter (nope) was not defined in template.",
        ),
        (
            ("stack", "create", "-t", "{template}", "--parameter", "novalue", "x"),
            "ERROR: Malformed parameter(novalue).",
        ),
        (("stack", "update", "nope", "--existing"), "ERROR: The Stack (nope) could not be found."),
        (("resource", "signal", "nope", "r", "--data", "{bad"), "ERROR: The Stack (nope)"),
    ],
)
def test_errors_are_one_line(
    cli: Cli, template: Path, args: tuple[str, ...], message: str
) -> None:
    result = cli(*(a.replace("{template}", str(template)) for a in args))
    assert result.status == 1
    assert result.err.startswith(message)
    assert len(result.err.splitlines()) == 1
    assert "Traceback" not in result.err


def test_signal_errors(cli: Cli, template: Path) -> None:
    assert cli("stack", "create", "-t", str(template), "--wait", "web").status == 0
    bad_json = cli("resource", "signal", "web", "first", "--data", "{bad")
    assert bad_json.err.startswith("ERROR: Signal data is not valid JSON")
    no_signals = cli("resource", "signal", "web", "first", "--data", json.dumps({"a": 1}))
    assert no_signals.status == 1
    assert "does not accept signals" in no_signals.err


def test_duplicate_name(cli: Cli, template: Path) -> None:
    assert cli("stack", "create", "-t", str(template), "--wait", "web").status == 0
    again = cli("stack", "create", "-t", str(template), "web")
    assert (again.status, again.err) == (1, "ERROR: The Stack (web) already exists.\n")


SLOW_TEMPLATE = """\
heat_template_version: 2018-08-31
resources:
  slow:
    type: OS::Heat::TestResource
    properties:
      action_wait_secs: {create: -1}
"""


def test_create_without_wait_says_how_it_goes_on(cli: Cli, tmp_path: Path) -> None:
    # A create that never finishes by itself, so the stack is surely still in progress when shown.
    template = tmp_path / "slow.yaml"
    template.write_text(SLOW_TEMPLATE, encoding="utf-8")
    started = cli("stack", "create", "-t", str(template), "web", "-f", "json")
    assert started.status == 0, started.err
    assert started.json()["stack_status"] == "CREATE_IN_PROGRESS"
    assert "stack web goes on when a later thermik command starts the engine" in started.err
    assert "Traceback" not in started.err
