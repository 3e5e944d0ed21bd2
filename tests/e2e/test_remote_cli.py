"""``thermik --os-endpoint URL``: the real ``thermik`` console script as a client of a real
``thermik-api`` (keystone-less) in another process.

The CLI's configuration puts its state directory under the test's own directory: that the
directory never appears shows that no command opened a database or started an engine.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from heatclient import client as heat_client

from tests.e2e.api_process import ApiProcess
from tests.e2e.remote_cli import RemoteCli, ok
from tests.e2e.support import TEMPLATE

PROJECT = "remote-p1"


@pytest.fixture
def api(tmp_path: Path) -> Iterator[ApiProcess]:
    config = tmp_path / "api.conf"
    config.write_text(
        f"[DEFAULT]\nstate_dir = {tmp_path / 'api-state'}\n[api]\nauth_strategy = noauth\n",
        encoding="utf-8",
    )
    running = ApiProcess(config)
    try:
        yield running
    finally:
        running.close()


@pytest.fixture
def cli(tmp_path: Path, api: ApiProcess) -> RemoteCli:
    template = tmp_path / "stack.yaml"
    template.write_text(yaml.safe_dump(TEMPLATE), encoding="utf-8")
    return RemoteCli(tmp_path, f"{api.root}/v1/{PROJECT}")


def by_key(rows: list[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    return {row[key]: row for row in rows}


@pytest.mark.slow
def test_stack_lifecycle_over_the_remote_api(
    cli: RemoteCli, api: ApiProcess, tmp_path: Path
) -> None:
    template = str(tmp_path / "stack.yaml")
    preview = ok(cli("stack", "create", "--dry-run", "-t", template, "s", "-f", "json")).json()
    assert sorted(r["resource_name"] for r in preview["resources"]) == ["first", "second"]
    created = ok(cli("stack", "create", "--wait", "-t", template, "--parameter", "word=hi", "s"))
    assert "[s]: CREATE_COMPLETE" in created.err, created.err
    assert "2/2 resources" in created.err

    # The stack is the service's: an unmodified heatclient sees it there.
    heat = heat_client.Client("1", endpoint=f"{api.root}/v1/{PROJECT}", token="t")
    [seen] = heat.stacks.list()
    assert (seen.stack_name, seen.stack_status) == ("s", "CREATE_COMPLETE")

    [listed] = ok(cli("stack", "list", "-f", "json")).json()
    assert (listed["ID"], listed["Stack Status"]) == (seen.id, "CREATE_COMPLETE")
    shown = ok(cli("stack", "show", "s", "-f", "json")).json()
    assert shown["parameters"]["word"] == "hi"
    assert shown["parameters"]["OS::project_id"] == PROJECT
    assert shown["outputs"] == [
        {"output_key": "echo", "description": "the echo", "output_value": "hi"}
    ]
    assert shown["links"][0]["href"] == f"{api.root}/v1/{PROJECT}/stacks/s/{seen.id}"

    outputs = ok(cli("stack", "output", "list", "s", "-f", "json")).json()
    assert outputs == [{"output_key": "echo", "description": "the echo"}]
    echo = ok(cli("stack", "output", "show", "s", "echo", "-f", "json")).json()
    assert echo["output_value"] == "hi"

    resources = by_key(
        ok(cli("stack", "resource", "list", "s", "-f", "json")).json(), "resource_name"
    )
    assert {name: row["resource_status"] for name, row in resources.items()} == {
        "first": "CREATE_COMPLETE",
        "second": "CREATE_COMPLETE",
    }
    first = ok(cli("stack", "resource", "show", "s", "first", "-f", "json")).json()
    assert first["attributes"]["output"] == "hi"
    events = ok(cli("stack", "event", "list", "s", "-f", "json")).json()
    assert [e["resource_status"] for e in events if e["resource_name"] == "s"] == [
        "CREATE_IN_PROGRESS",
        "CREATE_COMPLETE",
    ]
    assert yaml.safe_load(ok(cli("stack", "template", "show", "s")).out) == TEMPLATE
    validated = ok(cli("orchestration", "template", "validate", "-t", template, "-f", "json"))
    assert json.loads(validated.out)["Parameters"]["word"]["Default"] == "hello"

    updated = ok(
        cli("stack", "update", "--existing", "--parameter", "word=yo", "--wait", "s", "-f", "json")
    ).json()
    assert updated["stack_status"] == "UPDATE_COMPLETE"
    assert updated["outputs"][0]["output_value"] == "yo"

    ok(cli("stack", "delete", "--yes", "--wait", "s"))
    gone = ok(cli("stack", "show", seen.id, "-f", "json")).json()
    assert gone["stack_status"] == "DELETE_COMPLETE"
    assert ok(cli("stack", "list", "-f", "json")).json() == []
    assert not cli.state.exists(), "a remote command used the local state directory"


def test_errors_are_the_services_own_in_one_line(cli: RemoteCli, tmp_path: Path) -> None:
    template = str(tmp_path / "stack.yaml")
    ok(cli("stack", "create", "-t", template, "dup"))
    again = cli("stack", "create", "-t", template, "dup")
    assert (again.status, again.err) == (1, "ERROR: The Stack (dup) already exists.\n")
    missing = cli("stack", "show", "nothing")
    assert (missing.status, missing.err) == (1, "ERROR: The Stack (nothing) could not be found.\n")

    bad = tmp_path / "bad.yaml"
    bad.write_text("heat_template_version: 2018-08-31\nresources: {r: {type: OS::No::Such}}\n")
    refused = cli("orchestration", "template", "validate", "-t", str(bad))
    assert refused.status == 1
    assert "OS::No::Such" in refused.err, refused.err

    local_only = cli("engine", "status")
    assert local_only.status == 1
    assert "not available against a remote service" in local_only.err
    no_config = cli("software", "config", "show", "0b6c5c2e-8f0a-4a41-b1a6-58bb7e2f3d44")
    assert no_config.status == 1
    assert "0b6c5c2e-8f0a-4a41-b1a6-58bb7e2f3d44" in no_config.err, no_config.err

    unreachable = cli("stack", "list", endpoint="http://127.0.0.1:9/v1/p")
    assert unreachable.status == 1
    assert unreachable.err.startswith("ERROR: "), unreachable.err
    assert "127.0.0.1" not in unreachable.err
    assert "Traceback" not in unreachable.err
    assert not cli.state.exists(), "a remote command used the local state directory"


def test_software_configs_and_deployments(cli: RemoteCli, tmp_path: Path) -> None:
    script = tmp_path / "hello.sh"
    script.write_text("#!/bin/sh\necho hello\n", encoding="utf-8")
    create = ("software", "config", "create", "--config-file", str(script), "--group", "script")
    config = ok(cli(*create, "hello", "-f", "json")).json()
    assert (config["name"], config["config"]) == ("hello", "#!/bin/sh\necho hello\n")
    [listed] = ok(cli("software", "config", "list", "-f", "json")).json()
    assert listed["id"] == config["id"]
    deployment = ok(
        cli(
            "software",
            "deployment",
            "create",
            "--config",
            config["id"],
            "--server",
            "srv-1",
            "run-hello",
            "-f",
            "json",
        )
    ).json()
    assert deployment["server_id"] == "srv-1"
    metadata = ok(cli("software", "deployment", "metadata", "show", "srv-1")).out
    assert [entry["name"] for entry in json.loads(metadata)] == ["run-hello"]
    ok(cli("software", "deployment", "delete", deployment["id"]))
    assert ok(cli("software", "deployment", "list", "-f", "json")).json() == []
