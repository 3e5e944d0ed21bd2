"""kill -9 during a create on the loopback cloud: the next engine finishes the stack, the
delete completes, and nothing the stack made is left in the cloud (no orphans)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from openstack.connection import Connection

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.crash_child import RESULT
from tests.functional.cloud.leftovers import leftovers

pytestmark = pytest.mark.functional

ROOT = Path(__file__).resolve().parents[3]
CHILD = "tests.functional.cloud.crash_child"
NETWORKS = 10


def template(count: int) -> str:
    resources = "\n".join(
        f"  net{i}:\n    type: OS::Neutron::Net\n    properties: {{name: crashy-net{i}}}"
        for i in range(count)
    )
    return f"heat_template_version: 2018-08-31\nresources:\n{resources}\n"


def child(state: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", CHILD, str(state), *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def finished(state: Path, command: str) -> str:
    """Run the engine to the end of ``command``; how the stack's operation ended."""
    process = child(state, command)
    output, _ = process.communicate(timeout=400)
    assert process.returncode == 0, output
    results = [line for line in output.splitlines() if line.startswith(RESULT)]
    assert results, output
    return results[-1].removeprefix(RESULT)


def killed_during_create(state: Path, template_file: Path, how: str) -> str:
    """Start the create and have the engine killed (``after-post=N``: by itself as its
    ``N``-th create request is answered; ``after=S``: ``S`` s after it started it); the stack's
    id."""
    kind, _, value = how.partition("=")
    crash = [value] if kind == "after-post" else []
    process = child(state, "create", str(template_file), *crash)
    assert process.stdout is not None
    started = process.stdout.readline()
    assert started.startswith("CREATE started"), started + process.communicate()[0]
    if kind == "after":
        time.sleep(float(value))
        process.send_signal(signal.SIGKILL)
    process.communicate(timeout=120)
    assert process.returncode == -signal.SIGKILL, f"the engine was not killed: {how}"
    return started.split()[-1]


@pytest.mark.parametrize("how", ["after-post=3", "after=0.4"])
def test_a_create_killed_midway_leaves_no_orphans(
    cloud_env: CloudEnv, tmp_path: Path, how: str
) -> None:
    conn: Connection = cloud_env.connect()
    template_file = tmp_path / "stack.yaml"
    template_file.write_text(template(NETWORKS))
    state = tmp_path / "state"
    stack_id = killed_during_create(state, template_file, how)

    resumed = finished(state, "resume")
    assert resumed.split()[:2] in (["CREATE", "COMPLETE"], ["CREATE", "FAILED"]), resumed
    deleted = finished(state, "delete")
    assert deleted.split()[:2] == ["DELETE", "COMPLETE"], deleted
    assert leftovers(conn, stack_id) == []
