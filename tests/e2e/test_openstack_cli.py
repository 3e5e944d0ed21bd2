"""The unmodified ``openstack stack ...`` CLI against the real engine, keystone-less.

The CLI takes over a second to start, so the read-only commands run as one batch through its
interactive mode (commands on stdin, the auth options from ``OS_AUTH_TYPE``/``OS_ENDPOINT``);
the commands whose exit status matters (create, update, delete with ``--wait``) run alone with
``--os-auth-type none --os-endpoint ...``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.support import TEMPLATE, TENANT
from thermik.api.boundary import RequestContext, StackIdentity
from thermik.orchestration import Orchestrator

OPENSTACK = Path(sys.executable).with_name("openstack")


class Cli:
    """Runs the ``openstack`` CLI against one endpoint, isolated from the caller's OS_* env."""

    def __init__(self, endpoint: str, home: Path) -> None:
        self.endpoint = endpoint
        self.env = {"PATH": "/usr/bin:/bin", "HOME": str(home)}

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        """One command with the auth options on its command line."""
        command = [str(OPENSTACK), "--os-auth-type", "none", "--os-endpoint", self.endpoint]
        return subprocess.run(
            [*command, *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    def batch(self, *commands: str) -> tuple[list[Any], str]:
        """Commands through one interactive session, each ``-f json``: their documents and
        the session's stderr (where failed commands report)."""
        env = {**self.env, "OS_AUTH_TYPE": "none", "OS_ENDPOINT": self.endpoint}
        done = subprocess.run(
            [str(OPENSTACK)],
            input="".join(f"{command}\n" for command in commands),
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        return json_documents(done.stdout), done.stderr


#: Where the CLI's indented JSON output starts: a line that opens a map or a list.
DOCUMENT_START = re.compile(r"^[\[{](?=\n|\])", re.MULTILINE)


def json_documents(text: str) -> list[Any]:
    """The JSON documents printed in ``text`` (between other lines, such as events)."""
    decoder, found, index = json.JSONDecoder(), [], 0
    while (start := DOCUMENT_START.search(text, index)) is not None:
        document, index = decoder.raw_decode(text, start.start())
        found.append(document)
    return found


def events_printed(output: str) -> list[str]:
    """``[stack.resource]: STATUS`` of each event line a ``--wait`` printed
    (``<date> <time> <event id> [stack.resource]: STATUS  reason``)."""
    return [" ".join(line.split()[3:5]) for line in output.splitlines() if "]: " in line]


@pytest.fixture
def cli(endpoint: str, tmp_path: Path) -> Cli:
    return Cli(endpoint, tmp_path)


@pytest.mark.slow
def test_stack_lifecycle_through_the_cli(cli: Cli, service: Orchestrator, tmp_path: Path) -> None:
    template = tmp_path / "tmpl.yaml"
    template.write_text(yaml.safe_dump(TEMPLATE), encoding="utf-8")

    created = cli.run(
        "stack", "create", "-t", str(template), "--parameter", "word=hi", "--tags", "web,prod",
        "--wait", "--poll", "1", "-f", "json", "osc",
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    assert events_printed(created.stdout)[-1] == "[osc]: CREATE_COMPLETE"
    assert "[osc.second]: CREATE_COMPLETE" in events_printed(created.stdout)
    (summary,) = json_documents(created.stdout)
    assert summary["stack_status"] == "CREATE_COMPLETE"
    stored = service.store.get_stack(summary["id"])
    assert (stored.name, stored.status, stored.tags) == ("osc", "COMPLETE", ("web", "prod"))

    documents, errors = cli.batch(
        "stack list -f json",
        "stack show osc -f json",
        "stack output show osc echo -f json",
        "stack resource list osc -f json",
        "stack event list osc -f json",
    )
    assert errors == ""
    listed, shown, output, resources, events = documents
    assert [(s["Stack Name"], s["Stack Status"]) for s in listed] == [("osc", "CREATE_COMPLETE")]
    assert (shown["id"], shown["stack_status"]) == (summary["id"], "CREATE_COMPLETE")
    assert shown["outputs"] == [
        {"output_key": "echo", "description": "the echo", "output_value": "hi"}
    ]
    assert shown["parameters"]["word"] == "hi"
    assert shown["tags"] == ["web", "prod"]
    assert output["output_value"] == "hi"
    by_name = {r["resource_name"]: r for r in resources}
    assert {n: r["resource_status"] for n, r in by_name.items()} == {
        "first": "CREATE_COMPLETE",
        "second": "CREATE_COMPLETE",
    }
    engine_rows = {r.name: r.physical_resource_id for r in service.store.list_resources(stored.id)}
    assert {n: r["physical_resource_id"] for n, r in by_name.items()} == engine_rows
    assert [(e["resource_name"], e["resource_status"]) for e in events][-1] == (
        "osc",
        "CREATE_COMPLETE",
    )
    assert len(events) == 6

    updated = cli.run(
        "stack", "update", "-t", str(template), "--parameter", "word=bye", "--wait", "-f", "json",
        "osc",
    )  # fmt: skip
    assert updated.returncode == 0, updated.stderr
    assert events_printed(updated.stdout)[-1] == "[osc]: UPDATE_COMPLETE"
    (summary,) = json_documents(updated.stdout)
    assert summary["stack_status"] == "UPDATE_COMPLETE"
    view = service.show_stack(RequestContext(TENANT), StackIdentity("osc", stored.id))
    assert (view.action, view.status) == ("UPDATE", "COMPLETE")
    assert [(o.key, o.value) for o in view.outputs or ()] == [("echo", "bye")]

    deleted = cli.run("stack", "delete", "--wait", "-y", "osc")
    assert deleted.returncode == 0, deleted.stderr
    # It prints the delete's events until the name stops resolving, which may be at once.
    assert all("DELETE_" in event for event in events_printed(deleted.stdout)), deleted.stdout
    gone = service.store.get_stack(stored.id, show_deleted=True)
    assert (gone.action, gone.status) == ("DELETE", "COMPLETE")
    documents, errors = cli.batch("stack list -f json", "stack show osc -f json")
    assert documents == [[]]
    assert "Stack not found: osc" in errors


#: Commands both ``openstack`` and ``thermik`` run on stack ``twin`` (``-f json`` added).
TWIN_COMMANDS = (
    "stack list --short",
    "stack resource list twin",
    "stack resource show twin first",
    "stack resource metadata twin first",
    "stack event list twin",
    "stack output list twin",
    "stack output show twin echo",
    "stack environment show twin",
    "stack file list twin",
    "stack template show twin",
    "orchestration template version list",
    "orchestration template function list heat_template_version.2018-08-31",
    "orchestration resource type list --long",
    "orchestration resource type show OS::Heat::None",
    "orchestration resource type show OS::Heat::None --long",
    "software config list",
    "software deployment list",
)


@pytest.mark.slow
def test_thermik_commands_answer_as_their_openstack_twins(
    cli: Cli, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.unit.cmd.cli_support import Cli as Thermik

    template = tmp_path / "tmpl.yaml"
    template.write_text(yaml.safe_dump(TEMPLATE), encoding="utf-8")
    created = cli.run("stack", "create", "-t", str(template), "--wait", "-f", "json", "twin")
    assert created.returncode == 0, created.stderr
    (tmp_path / "thermik").mkdir()
    thermik = Thermik(tmp_path / "thermik", capsys)
    made = thermik("stack", "create", "-t", str(template), "--wait", "twin")
    assert made.status == 0, made.err

    theirs, errors = cli.batch(*(f"{command} -f json" for command in TWIN_COMMANDS))
    assert errors == ""
    ours = [thermik(*command.split(), "-f", "json").json() for command in TWIN_COMMANDS]
    shapes = [shape(document) for document in theirs]
    assert [shape(document) for document in ours] == shapes
    assert cli.run("stack", "delete", "--wait", "-y", "twin").returncode == 0


def shape(document: Any) -> Any:
    """A command's answer without its values: the keys of a map, of a list's first row."""
    if isinstance(document, list):
        return ["list", shape(document[0]) if document else None]
    if isinstance(document, dict):
        return sorted(document)
    return type(document).__name__
