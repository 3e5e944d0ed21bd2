"""``thermik --os-cloud NAME template validate`` checks a template's custom constraints
against that cloud, as Heat's validate does; without a cloud it cannot and does not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.functional.cloud.cloud import CloudEnv

pytestmark = pytest.mark.functional

TEMPLATE = """
heat_template_version: 2018-08-31
resources:
  net:
    type: OS::Neutron::Net
    properties: {qos_policy: no-such-policy}
"""


def thermik(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "thermik.cmd.cli", *args]
    return subprocess.run(
        command, check=False, capture_output=True, text=True, env=env, timeout=120
    )


def test_validate_names_the_property_and_the_clouds_answer(
    cloud_env: CloudEnv, tmp_path: Path
) -> None:
    template = tmp_path / "t.yaml"
    template.write_text(TEMPLATE)
    env = {**os.environ, "OS_CLIENT_CONFIG_FILE": str(cloud_env.config_file)}
    env.pop("OS_CLOUD", None)
    with_cloud = thermik(
        "--os-cloud", cloud_env.cloud, "template", "validate", "-t", str(template), env=env
    )
    assert with_cloud.returncode == 1
    assert with_cloud.stderr.strip() == (
        "ERROR: resources.net.properties.qos_policy: Error validating value 'no-such-policy': "
        "The QoS Policy (no-such-policy) could not be found."
    )
    without = thermik("template", "validate", "-t", str(template), env=env)
    assert without.returncode == 0, without.stderr


def test_validate_refuses_a_type_whose_service_the_region_lacks_unless_ignored(
    cloud_env: CloudEnv, tmp_path: Path
) -> None:
    config = yaml.safe_load(cloud_env.config_file.read_text())
    config["clouds"][cloud_env.cloud]["region_name"] = "ThermikNowhere"
    elsewhere = tmp_path / "clouds.yaml"
    elsewhere.write_text(yaml.safe_dump(config))
    template = tmp_path / "t.yaml"
    template.write_text(
        "heat_template_version: 2018-08-31\nresources:\n  net: {type: OS::Neutron::Net}\n"
    )
    env = {**os.environ, "OS_CLIENT_CONFIG_FILE": str(elsewhere)}
    env.pop("OS_CLOUD", None)
    command = ("--os-cloud", cloud_env.cloud, "template", "validate", "-t", str(template))
    refused = thermik(*command, env=env)
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        "ERROR: resources.net: HEAT-E99001 Service neutron is not available for resource type "
        "OS::Neutron::Net, reason: neutron network endpoint is not in service catalog."
    )
    ignored = thermik(*command, "--ignore-errors", "99001", env=env)
    assert ignored.returncode == 0, ignored.stderr
