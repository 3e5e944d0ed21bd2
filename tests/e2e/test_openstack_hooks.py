"""Breakpoint hooks with the unmodified ``openstack stack`` CLI over the REST API, keystone-less:
``stack create --pre-create``, ``stack hook poll`` and ``stack hook clear`` as heatclient
sends them (events, and a signal ``{"unset_hook": ...}`` to the resource)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.e2e.support import TENANT
from tests.e2e.test_openstack_cli import Cli
from thermik.api.boundary import RequestContext
from thermik.orchestration import Orchestrator

CHAIN = {
    "heat_template_version": "2014-10-16",
    "resources": {
        "foo_step1": {"type": "OS::Heat::RandomString"},
        "foo_step2": {"type": "OS::Heat::RandomString", "depends_on": "foo_step1"},
    },
}


@pytest.fixture
def cli(endpoint: str, tmp_path: Path) -> Cli:
    return Cli(endpoint, tmp_path)


def polled(cli: Cli) -> list[dict[str, str]]:
    done = cli.run("stack", "hook", "poll", "hooked", "-f", "json")
    assert done.returncode == 0, done.stderr
    rows: list[dict[str, str]] = json.loads(done.stdout)
    return rows


@pytest.mark.slow
def test_openstack_stack_hook_poll_and_clear(
    cli: Cli, service: Orchestrator, tmp_path: Path
) -> None:
    template = tmp_path / "chain.yaml"
    template.write_text(json.dumps(CHAIN), encoding="utf-8")
    created = cli.run(
        "stack", "create", "-t", str(template), "--pre-create", "foo_step2", "hooked"
    )
    assert created.returncode == 0, created.stderr
    deadline = time.monotonic() + 60
    while not (rows := polled(cli)):
        assert time.monotonic() < deadline
        time.sleep(0.5)
    assert [row["Resource Name"] for row in rows] == ["foo_step2"]
    assert rows[0]["Resource Status Reason"] == "CREATE paused until Hook pre-create is cleared"
    assert rows[0]["Resource Status"] == "INIT_COMPLETE"
    cleared = cli.run("stack", "hook", "clear", "hooked", "foo_step2")
    assert cleared.returncode == 0, cleared.stderr
    context = RequestContext(tenant=TENANT, user="demo")
    stack = service.identify_stack(context, "hooked")
    service.runtime.wait(stack.id, 60)
    shown = cli.run("stack", "show", "hooked", "-f", "json")
    assert json.loads(shown.stdout)["stack_status"] == "CREATE_COMPLETE"
