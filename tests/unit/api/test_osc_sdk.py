"""The unmodified OpenStack client (``openstack stack ...``) and openstacksdk, keystone-less."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import openstack
import pytest
import yaml

from tests.unit.api.conftest import TEMPLATE, TENANT
from tests.unit.api.memory_service import MemoryService

OPENSTACK = Path(sys.executable).with_name("openstack")


@pytest.fixture
def osc(live_api: str, tmp_path: Path) -> Any:
    """Runs ``openstack --os-auth-type none --os-endpoint <api> ...``, isolated from OS_* env."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    base = [str(OPENSTACK), "--os-auth-type", "none", "--os-endpoint", f"{live_api}/v1/{TENANT}"]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*base, *args], env=env, capture_output=True, text=True, timeout=60, check=False
        )

    return run


@pytest.mark.slow
def test_osc_create_wait_list_delete(osc: Any, service: MemoryService, tmp_path: Path) -> None:
    template = tmp_path / "tmpl.yaml"
    template.write_text(yaml.safe_dump(TEMPLATE))
    created = osc(
        "stack",
        "create",
        "-t",
        str(template),
        "--parameter",
        "flavor=big",
        "--tags",
        "a,b",
        "--wait",
        "-f",
        "json",
        "s1",
    )
    assert created.returncode == 0, created.stderr
    assert "[s1]: CREATE_COMPLETE" in created.stdout
    (stack,) = service.stacks.values()
    assert (stack.parameters["flavor"], stack.tags) == ("big", ("a", "b"))

    listed = osc("stack", "list", "-f", "json")
    assert listed.returncode == 0, listed.stderr
    assert [(s["Stack Name"], s["Stack Status"]) for s in json.loads(listed.stdout)] == [
        ("s1", "CREATE_COMPLETE")
    ]

    deleted = osc("stack", "delete", "--yes", "--wait", "s1")
    assert deleted.returncode == 0, deleted.stderr
    assert stack.deleted is not None
    missing = osc("stack", "show", "s1")
    assert missing.returncode == 1
    assert "Stack not found: s1" in missing.stderr


# openstacksdk warns about its own pending removals (InfluxDB support, _compute_attributes).
@pytest.mark.filterwarnings("ignore::openstack.warnings.OpenStackDeprecationWarning")
@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_openstacksdk_orchestration(live_api: str, service: MemoryService) -> None:
    conn = openstack.connect(
        auth_type="none",
        auth={"endpoint": f"{live_api}/v1/{TENANT}"},
        load_yaml_config=False,
        load_envvars=False,
    )
    try:
        orchestration = conn.orchestration
        created = orchestration.create_stack(name="s1", template=TEMPLATE)
        stack = orchestration.get_stack(created.id)
        assert (stack.name, stack.status) == ("s1", "CREATE_COMPLETE")
        assert orchestration.find_stack("s1").id == created.id
        assert [s.name for s in orchestration.stacks()] == ["s1"]
        assert {r.name for r in orchestration.resources(stack)} == {"server", "config"}
        orchestration.update_stack(stack, template=TEMPLATE)
        updated = orchestration.wait_for_status(
            stack, status="UPDATE_COMPLETE", failures=["UPDATE_FAILED"], wait=10
        )
        assert updated.status == "UPDATE_COMPLETE"
        orchestration.check_stack(stack)
        assert orchestration.get_stack(created.id).status == "CHECK_COMPLETE"
        assert orchestration.validate_template(template=TEMPLATE).description == "A test stack"
        orchestration.delete_stack(stack)
        orchestration.wait_for_delete(stack, wait=10)
        assert service.stacks[created.id].deleted is not None
    finally:
        conn.close()
