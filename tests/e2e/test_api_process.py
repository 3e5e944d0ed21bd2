"""The ``thermik-api`` console script as a process: serving heatclient, stopping on signals.

On SIGTERM or SIGINT it must close the service: the engine's actors stop, the engine
deregisters, the database is released, and whatever was running stays recorded so that the
next start resumes it.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from heatclient import client as heat_client

from tests.e2e.api_process import ApiProcess
from tests.e2e.support import TEMPLATE, outputs_of, settled
from thermik.conf.settings import Settings
from thermik.persistence.factory import open_store
from thermik.service import encryption_key

#: A create that takes a while: long enough to be interrupted, short enough to resume.
SLOW: dict[str, object] = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "sleeper": {"type": "OS::Heat::TestResource", "properties": {"wait_secs": 2}},
    },
}


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "thermik.conf"
    path.write_text(
        f"[DEFAULT]\nstate_dir = {tmp_path / 'state'}\n[api]\nauth_strategy = noauth\n",
        encoding="utf-8",
    )
    return path


@pytest.fixture
def running(config: Path) -> Iterator[ApiProcess]:
    api = ApiProcess(config)
    try:
        yield api
    finally:
        api.close()


def stop_while_creating(api: ApiProcess, signum: int, state_dir: Path) -> str:
    """Serve a create to completion and start a slow one, then stop ``api`` by ``signum``
    and check it closed the service; the slow stack's id."""
    heat = heat_client.Client("1", endpoint=f"{api.root}/v1/t1", token="t")
    done = heat.stacks.create(stack_name="done", template=TEMPLATE, parameters={"word": "w"})
    stack = settled(heat, done["stack"]["id"])
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    assert outputs_of(stack) == {"echo": "w"}
    slow_id = str(heat.stacks.create(stack_name="slow", template=SLOW)["stack"]["id"])
    assert heat.stacks.get(slow_id).stack_status == "CREATE_IN_PROGRESS"

    assert api.stop(signum) == 0, "".join(api.log)
    api.wait_for("Stopped: the engine's actors are stopped")
    assert "Traceback" not in "".join(api.log)

    settings = Settings.embedded(state_dir)
    store = open_store(settings.database, encryption_key(settings))
    try:
        assert store.list_engines() == [], "the engine did not deregister"
        stopped = store.get_stack(slow_id)
        assert (stopped.action, stopped.status) == ("CREATE", "IN_PROGRESS")
    finally:
        store.close()
    return slow_id


@pytest.mark.slow
def test_sigint_closes_the_service(running: ApiProcess, tmp_path: Path) -> None:
    stop_while_creating(running, signal.SIGINT, tmp_path / "state")


@pytest.mark.slow
def test_sigterm_closes_the_service_and_a_restart_resumes(
    running: ApiProcess, config: Path, tmp_path: Path
) -> None:
    slow_id = stop_while_creating(running, signal.SIGTERM, tmp_path / "state")
    again = ApiProcess(config)
    try:
        heat = heat_client.Client("1", endpoint=f"{again.root}/v1/t1", token="t")
        resumed = settled(heat, slow_id)
        assert resumed.stack_status == "CREATE_COMPLETE", resumed.stack_status_reason
        assert again.stop(signal.SIGTERM) == 0
    finally:
        again.close()
