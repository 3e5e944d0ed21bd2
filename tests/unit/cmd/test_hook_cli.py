"""``thermik stack hook poll|clear`` and ``--pre-create``/``--pre-update``, as openstack's."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.unit.cmd.cli_support import Cli
from thermik.cmd.hook import add_hooks

CHAIN = """\
heat_template_version: 2014-10-16
resources:
  foo_step1: {type: OS::Heat::RandomString}
  foo_step2: {type: OS::Heat::RandomString, depends_on: foo_step1}
  inner: {type: inner.yaml}
"""
INNER = """\
heat_template_version: 2014-10-16
resources:
  deep_one: {type: OS::Heat::RandomString}
"""


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path, capsys)


@pytest.fixture
def template(tmp_path: Path) -> Path:
    (tmp_path / "inner.yaml").write_text(INNER, encoding="utf-8")
    path = tmp_path / "chain.yaml"
    path.write_text(CHAIN, encoding="utf-8")
    return path


def test_hooks_from_options_go_to_the_registry_as_openstack_puts_them() -> None:
    assert add_hooks(None, [], "pre-create") is None
    assert add_hooks(None, ["web", "nested/an*/db", "/x/"], "pre-create") == {
        "resource_registry": {
            "resources": {
                "web": {"hooks": "pre-create"},
                "nested": {"an*": {"db": {"hooks": "pre-create"}}},
                "x": {"hooks": "pre-create"},
            }
        }
    }


def poll(cli: Cli, *args: str) -> list[dict[str, str]]:
    result = cli("stack", "hook", "poll", "s1", "-f", "json", *args)
    assert result.status == 0, result.err
    rows: list[dict[str, str]] = result.json()
    return rows


def until_polled(cli: Cli, names: set[str], *args: str) -> list[dict[str, str]]:
    deadline = time.monotonic() + 30
    while True:
        rows = poll(cli, *args)
        if {row["Resource Name"] for row in rows} == names:
            return rows
        assert time.monotonic() < deadline, rows
        time.sleep(0.1)


def test_create_with_a_hook_poll_and_clear(cli: Cli, template: Path) -> None:
    created = cli(
        "stack", "create", "-t", str(template), "--pre-create", "foo_step2",
        "--pre-create", "inner/deep_*", "s1",
    )  # fmt: skip
    assert created.status == 0, created.err
    rows = until_polled(cli, {"foo_step2"})
    assert rows[0]["Resource Status Reason"] == "CREATE paused until Hook pre-create is cleared"
    assert rows[0]["Resource Status"] == "INIT_COMPLETE"
    until_polled(cli, {"foo_step2", "deep_one"}, "--nested-depth", "1")
    refused = cli("stack", "hook", "clear", "s1", "foo_step1")
    assert refused.status == 1
    assert refused.err.startswith('ERROR: The "pre-create" hook is not defined on foo_step1')
    # foo_step1 matches too and waits at nothing: a pattern passes over it.
    cleared = cli("stack", "hook", "clear", "s1", "foo_*", "inner/*")
    assert cleared.status == 0, cleared.err
    # Nothing waits any more (or the create is over: polling a settled stack is refused).
    after = cli("stack", "hook", "poll", "s1", "--nested-depth", "1", "-f", "json")
    assert (after.status, after.out) == (0, "[]\n") or "not IN_PROGRESS" in after.err
    finished = cli("stack", "create", "-t", str(template), "--wait", "s2")
    assert finished.status == 0, finished.err
    done = cli("stack", "hook", "poll", "s2")
    assert (done.status, done.err) == (1, "ERROR: Stack status CREATE_COMPLETE not IN_PROGRESS\n")


def test_update_with_a_pre_update_hook(cli: Cli, template: Path) -> None:
    assert cli("stack", "create", "-t", str(template), "--wait", "s1").status == 0
    updated = cli("stack", "update", "-t", str(template), "--pre-update", "foo_step1", "s1")
    assert updated.status == 0, updated.err
    rows = until_polled(cli, {"foo_step1"})
    assert rows[0]["Resource Status"] == "CREATE_COMPLETE"
    assert cli("stack", "hook", "clear", "--pre-update", "s1", "foo_step1").status == 0
