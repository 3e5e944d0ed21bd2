"""``thermik stack update``: PUT and PATCH (``--existing``) semantics, and ``--dry-run``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.unit.cmd.cli_support import Cli

BEFORE = """\
heat_template_version: 2018-08-31
parameters:
  word: {type: string, default: hello}
  other: {type: string, default: dflt}
resources:
  keep:
    type: OS::Heat::TestResource
    properties: {value: {get_param: word}}
  inplace:
    type: OS::Heat::TestResource
    properties: {value: one}
  replaced:
    type: OS::Heat::TestResource
    properties: {value: x, update_replace_value: a}
  removed:
    type: OS::Heat::TestResource
    properties: {value: gone}
outputs:
  other: {value: {get_param: other}}
"""
AFTER = (
    BEFORE.replace("value: one", "value: two")
    .replace("update_replace_value: a", "update_replace_value: b")
    .replace("  removed:\n", "  added:\n")
)


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    created = Cli(tmp_path, capsys)
    (tmp_path / "before.yaml").write_text(BEFORE, encoding="utf-8")
    (tmp_path / "after.yaml").write_text(AFTER, encoding="utf-8")
    done = created(
        "stack",
        "create",
        "-t",
        str(tmp_path / "before.yaml"),
        "--parameter",
        "word=hi",
        "--parameter",
        "other=oth",
        "--wait",
        "web",
    )
    assert done.status == 0, done.err
    return created


def parameters(cli: Cli) -> dict[str, Any]:
    shown = cli("stack", "show", "web", "-f", "json", "-c", "parameters").json()
    return {k: v for k, v in shown["parameters"].items() if not k.startswith("OS::")}


def changes(cli: Cli, *args: str) -> dict[str, list[str]]:
    preview = cli("stack", "update", "web", *args, "--dry-run", "-f", "json")
    assert preview.status == 0, preview.err
    return {kind: [r["resource_name"] for r in found] for kind, found in preview.json().items()}


def test_dry_run_shows_each_kind_of_change(cli: Cli, tmp_path: Path) -> None:
    after = str(tmp_path / "after.yaml")
    assert changes(cli, "-t", after, "--existing") == {
        "added": ["added"],
        "deleted": ["removed"],
        "replaced": ["replaced"],
        "unchanged": ["keep"],
        "updated": ["inplace"],
    }
    # PUT: parameters not given go back to their defaults, so "keep" changes too.
    assert changes(cli, "-t", after)["updated"] == ["inplace", "keep"]
    preview = cli("stack", "update", "web", "-t", after, "--dry-run", "-f", "json").json()
    removed = preview["deleted"][0]
    assert removed["physical_resource_id"].startswith("web-removed-")
    assert removed["resource_status"] == "CREATE_COMPLETE"
    assert parameters(cli) == {"word": "hi", "other": "oth"}


def test_put_patch_and_cleared_parameters(cli: Cli, tmp_path: Path) -> None:
    update = ("stack", "update", "web", "--wait")
    assert cli(*update, "--existing", "--clear-parameter", "word").status == 0
    assert parameters(cli) == {"word": "hello", "other": "oth"}
    assert cli(*update, "--existing", "--parameter", "word=again").status == 0
    assert parameters(cli) == {"word": "again", "other": "oth"}
    assert cli(*update, "-t", str(tmp_path / "after.yaml")).status == 0
    assert parameters(cli) == {"word": "hello", "other": "dflt"}
    resources = cli("resource", "list", "web", "-f", "value", "-c", "resource_name").out.split()
    assert sorted(resources) == ["added", "inplace", "keep", "replaced"]


def test_create_dry_run_shows_the_api_preview(cli: Cli, tmp_path: Path) -> None:
    shown = cli(
        "stack", "create", "-t", str(tmp_path / "before.yaml"), "--dry-run", "new", "-f", "json"
    ).json()
    # What openstack stack create --dry-run prints: the API's preview, keys sorted.
    assert list(shown) == [
        "capabilities",
        "creation_time",
        "description",
        "disable_rollback",
        "id",
        "links",
        "notification_topics",
        "parameters",
        "parent",
        "resources",
        "stack_name",
        "stack_owner",
        "stack_user_project_id",
        "tags",
        "template_description",
        "timeout_mins",
        "updated_time",
    ]
    assert shown["id"] == "None"
    # Heat's preview gives each resource's action and status apart.
    assert {(r["resource_action"], r["resource_status"]) for r in shown["resources"]} == {
        ("INIT", "COMPLETE")
    }
