"""Local mode from the real command line: ``thermik --os-cloud loopback stack create --wait``
runs a template on the loopback cloud with no Thermik service, as a user runs it from a
laptop (the state directory's engine daemon gets the cloud's credentials), then ``stack delete
--wait`` leaves nothing in the cloud."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.functional.cloud.cloud import CloudEnv

pytestmark = pytest.mark.functional

THERMIK = str(Path(sys.executable).with_name("thermik"))

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  prefix: {type: string}
  login_key:
    type: string
    default: ""
    constraints: [{custom_constraint: nova.keypair}]
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: {list_join: ["-", [{get_param: prefix}, net]]}}
  key:
    type: OS::Nova::KeyPair
    properties: {name: {list_join: ["-", [{get_param: prefix}, key]]}}
outputs:
  net: {value: {get_resource: net}}
  key: {value: {get_resource: key}}
  public_key: {value: {get_attr: [key, public_key]}}
"""


def thermik(tmp_path: Path, env: CloudEnv, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the ``thermik`` command with a state directory of the test's own and the cloud's
    clouds.yaml found where openstacksdk looks (``OS_CLIENT_CONFIG_FILE``)."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    environ.update(
        OS_CLIENT_CONFIG_FILE=str(env.config_file), XDG_STATE_HOME=str(tmp_path / "state")
    )
    return subprocess.run(
        [THERMIK, "--os-cloud", env.cloud, *args],
        env=environ,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_stack_is_created_and_deleted_on_the_cloud_from_the_command_line(
    tmp_path: Path, cloud_env: CloudEnv
) -> None:
    conn = cloud_env.connect()
    prefix = f"glance-cli-{uuid.uuid4().hex[:6]}"
    template = tmp_path / "stack.yaml"
    template.write_text(TEMPLATE)

    bad = thermik(
        tmp_path, cloud_env, "stack", "create", "-t", str(template),
        "--parameter", f"prefix={prefix}", "--parameter", "login_key=no-such-key", prefix,
    )  # fmt: skip
    assert bad.returncode == 1
    assert "login_key" in bad.stderr
    assert "The Key (no-such-key) could not be found." in bad.stderr
    assert "Traceback" not in bad.stderr

    try:
        created = thermik(
            tmp_path, cloud_env, "stack", "create", "-t", str(template),
            "--parameter", f"prefix={prefix}", "--wait", "-f", "json", prefix,
        )  # fmt: skip
        assert created.returncode == 0, created.stderr
        shown = json.loads(created.stdout)
        assert shown["stack_status"] == "CREATE_COMPLETE"
        outputs = {o["output_key"]: o["output_value"] for o in shown["outputs"]}
        assert conn.network.get_network(outputs["net"]).name == f"{prefix}-net"
        keypair = conn.compute.get_keypair(f"{prefix}-key")
        assert outputs["public_key"] == keypair.public_key

        # The stack went to the state directory's engine daemon, started with the cloud.
        status = thermik(tmp_path, cloud_env, "engine", "status", "-f", "json")
        assert json.loads(status.stdout)["cloud"] == cloud_env.cloud

        deleted = thermik(tmp_path, cloud_env, "stack", "delete", "--wait", "-y", prefix)
        assert deleted.returncode == 0, deleted.stderr
    finally:
        thermik(tmp_path, cloud_env, "engine", "stop")
        leftover_nets = list(conn.network.networks(name=f"{prefix}-net"))
        leftover_keys = [k for k in conn.compute.keypairs() if k.name.startswith(prefix)]
        for net in leftover_nets:
            conn.network.delete_network(net)
        for key in leftover_keys:
            conn.compute.delete_keypair(key)
    assert not leftover_nets
    assert not leftover_keys
