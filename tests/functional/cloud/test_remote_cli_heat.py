"""``thermik --os-endpoint URL --os-cloud NAME`` against real OpenStack Heat 27: the same CLI
drives Heat's own heat-api as the cloud's demo user.

Opt-in: it runs when ``THERMIK_HEAT_URL`` is set, as ``tools/heat-up.sh`` writes it to
``.state/heat.env`` (``set -a; . .state/heat.env; set +a``); the suite's services do not
include Heat, so without it the test is skipped, saying so. Stop Heat afterwards with
``tools/heat-down.sh``.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest
import yaml

from tests.e2e.remote_cli import RemoteCli, ok

pytestmark = [pytest.mark.functional]

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "parameters": {"word": {"type": "string", "default": "hello"}},
    "resources": {
        "rand": {"type": "OS::Heat::RandomString", "properties": {"length": 8}},
        "echo": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "word"}}},
    },
    "outputs": {
        "echo": {"value": {"get_attr": ["echo", "value"]}},
        "rand": {"value": {"get_attr": ["rand", "value"]}},
    },
}


@pytest.fixture
def heat(tmp_path: Path) -> RemoteCli:
    url = os.environ.get("THERMIK_HEAT_URL")
    if not url:
        pytest.skip("real Heat is not up: run tools/heat-up.sh and source .state/heat.env")
    config = os.environ["THERMIK_HEAT_CLOUD_CONFIG"]
    cloud = os.environ["THERMIK_HEAT_CLOUD"]
    return RemoteCli(tmp_path, url, ("--os-cloud", cloud), {"OS_CLIENT_CONFIG_FILE": config})


def test_the_cli_drives_real_heat(heat: RemoteCli, tmp_path: Path) -> None:
    template = tmp_path / "stack.yaml"
    template.write_text(yaml.safe_dump(TEMPLATE), encoding="utf-8")
    name = f"remote-heat-{uuid.uuid4().hex[:8]}"
    created = ok(
        heat("stack", "create", "--wait", "-t", str(template), "--parameter", "word=yo", name)
    )
    assert f"[{name}]: CREATE_COMPLETE" in created.err, created.err
    try:
        listed = ok(heat("stack", "list", "-f", "json")).json()
        assert name in [row["Stack Name"] for row in listed]
        shown = ok(heat("stack", "show", name, "-f", "json")).json()
        assert shown["stack_status"] == "CREATE_COMPLETE"
        outputs = {o["output_key"]: o["output_value"] for o in shown["outputs"]}
        assert outputs["echo"] == "yo"
        assert len(outputs["rand"]) == 8
        echo = ok(heat("stack", "output", "show", name, "echo", "-f", "json")).json()
        assert echo["output_value"] == "yo"
        resources = ok(heat("stack", "resource", "list", name, "-f", "json")).json()
        assert sorted(r["resource_name"] for r in resources) == ["echo", "rand"]
        events = ok(heat("stack", "event", "list", name, "-f", "json")).json()
        assert events[-1]["resource_status"] == "CREATE_COMPLETE"
        # Heat's own refusal, in its own words.
        abandoned = heat("stack", "abandon", name)
        assert (abandoned.status, abandoned.err) == (1, "ERROR: Stack Abandon is not supported.\n")
    finally:
        ok(heat("stack", "delete", "--yes", "--wait", name))
    gone = ok(heat("stack", "show", shown["id"], "-f", "json")).json()
    assert gone["stack_status"] == "DELETE_COMPLETE"
