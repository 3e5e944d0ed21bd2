"""``thermik event list``: the openstack client's columns, ``--sort key:dir`` and ``--follow``."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.unit.cmd.cli_support import Cli, config_file, write_project


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    created = Cli(tmp_path, capsys)
    template = write_project(tmp_path / "project")
    assert created("stack", "create", "-t", str(template), "--wait", "web").status == 0
    return created


def test_columns_are_the_openstack_clients(cli: Cli) -> None:
    events = cli("event", "list", "web", "-f", "json").json()
    assert list(events[0]) == [
        "resource_name",
        "id",
        "resource_status",
        "resource_status_reason",
        "event_time",
        "physical_resource_id",
        "logical_resource_id",
    ]
    stack_id = cli("stack", "show", "web", "-f", "value", "-c", "id").out.strip()
    assert (events[0]["resource_name"], events[0]["physical_resource_id"]) == ("web", stack_id)
    nested = cli("event", "list", "web", "--nested-depth", "1", "-f", "json").json()
    assert {e["stack_name"] for e in nested} == {"web"}


def test_sort_by_key_and_direction(cli: Cli) -> None:
    newest = cli("event", "list", "web", "--sort", ":desc", "--limit", "1", "-f", "json").json()
    assert [(e["resource_name"], e["resource_status"]) for e in newest] == [
        ("web", "CREATE_COMPLETE")
    ]
    by_name = cli("event", "list", "web", "--sort", "resource_name:desc", "-f", "json").json()
    names = [e["resource_name"] for e in by_name]
    assert names == sorted(names, reverse=True)
    bad = cli("event", "list", "web", "--sort", "colour")
    assert (bad.status, bad.out) == (1, "")
    assert bad.err.startswith("ERROR: Unknown sort key 'colour'")
    both = cli("event", "list", "web", "--resource", "first", "--nested-depth", "1")
    assert both.err == "ERROR: --nested-depth cannot be specified with --resource\n"


def test_follow_prints_log_lines_until_interrupted(cli: Cli, tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "thermik"
    command = [str(script), "--config-file", str(config_file(tmp_path)), "event", "list"]
    with subprocess.Popen(
        [*command, "web", "--follow"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as follow:
        assert follow.stdout is not None
        assert follow.stderr is not None
        first = follow.stdout.readline()
        time.sleep(0.5)
        follow.send_signal(signal.SIGINT)
        rest = follow.stdout.read()
        err = follow.stderr.read()
    assert follow.returncode == 0, err
    assert "[web]: CREATE_IN_PROGRESS  Stack CREATE started" in first
    done = "[web]: CREATE_COMPLETE  Stack CREATE completed successfully"
    assert [line for line in rest.splitlines() if line.endswith(done)], rest
    assert "Traceback" not in err
