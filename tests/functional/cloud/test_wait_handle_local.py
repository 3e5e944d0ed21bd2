"""A wait condition completes when a shell runs its handle's ``curl_cli``, in local mode.

An engine as ``thermik stack create`` runs it (the embedded default, builtin delivery served
on a loopback port, no Keystone): the handle's endpoint is the builtin delivery's handle URL
and ``curl_cli`` POSTs to it with no token. The real curl, run by a shell exactly as a
user_data script runs it, completes the wait with its data; a FAILURE fails the stack with
the reason; a wait with too few signals times out.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.functional.cloud.engine import CTX
from thermik.api.boundary import StackIdentity, StackRequest, StackView
from thermik.conf.settings import Settings
from thermik.orchestration import Orchestrator
from thermik.service import orchestrator_for, start_engine
from thermik.template.loader import load_document

pytestmark = pytest.mark.functional

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  count: {type: number, default: 2}
  timeout: {type: number, default: 120}
resources:
  handle: {type: OS::Heat::WaitConditionHandle}
  wait:
    type: OS::Heat::WaitCondition
    properties:
      handle: {get_resource: handle}
      count: {get_param: count}
      timeout: {get_param: timeout}
outputs:
  data: {value: {get_attr: [wait, data]}}
"""


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Orchestrator]:
    settings = Settings.embedded(tmp_path / "state")
    engine = start_engine(settings)
    orchestrator = orchestrator_for(engine, settings)
    yield orchestrator
    orchestrator.close()


def create(service: Orchestrator, **parameters: Any) -> StackIdentity:
    request = StackRequest(
        name=f"wch-{uuid.uuid4().hex[:8]}", template=load_document(TEMPLATE), parameters=parameters
    )
    return service.create_stack(CTX, request)


def handle_attribute(service: Orchestrator, stack: StackIdentity, name: str) -> Any:
    """The handle's attribute, once the handle is created (and its value is known)."""
    deadline = time.monotonic() + 60
    while True:
        view = service.show_resource(CTX, stack, "handle", with_attr=(name,))
        value = (view.attributes or {}).get(name)
        if view.status == "COMPLETE" and value is not None:
            return value
        assert time.monotonic() < deadline, f"the handle is still {view.action}_{view.status}"
        time.sleep(0.2)


def run_curl(curl_cli: str, body: dict[str, Any]) -> str:
    """Run ``curl_cli`` with the signal appended, through a shell as a user_data script."""
    line = f"{curl_cli} --data-binary '{json.dumps(body)}'"
    done = subprocess.run(
        ["sh", "-c", line], check=False, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def finished(service: Orchestrator, stack: StackIdentity) -> StackView:
    service.runtime.wait(stack.id, 120)
    return service.show_stack(CTX, stack, resolve_outputs=True)


@pytest.fixture(autouse=True)
def _curl() -> None:
    assert shutil.which("curl"), "curl is needed to signal as a user_data script does"


def test_curl_cli_signals_the_builtin_handle_url_and_completes_the_wait(
    service: Orchestrator,
) -> None:
    stack = create(service)
    curl_cli = handle_attribute(service, stack, "curl_cli")
    endpoint = handle_attribute(service, stack, "endpoint")
    token = service.show_resource(CTX, stack, "handle", with_attr=("token",)).attributes
    assert (token or {}).get("token") is None
    assert "/delivery/v1/handle/" in endpoint
    assert "temp_url_sig=" in endpoint
    assert curl_cli.startswith("curl -i -X POST -H 'Content-Type: application/json'")
    assert json.loads(handle_attribute(service, stack, "signal")) == {"alarm_url": endpoint}

    answer = run_curl(curl_cli, {"status": "SUCCESS", "data": "first", "id": "a"})
    assert " 200 " in answer.splitlines()[0], answer
    assert service.show_stack(CTX, stack).status == "IN_PROGRESS", "one of two signals"
    run_curl(curl_cli, {"status": "SUCCESS", "data": "second", "reason": "done"})

    view = finished(service, stack)
    assert (view.action, view.status) == ("CREATE", "COMPLETE"), view.status_reason
    outputs = {output.key: output.value for output in view.outputs or ()}
    assert json.loads(outputs["data"]) == {"a": "first", "2": "second"}


def test_a_failure_signalled_by_curl_fails_the_stack_with_its_reason(
    service: Orchestrator,
) -> None:
    stack = create(service)
    run_curl(
        handle_attribute(service, stack, "curl_cli"),
        {"status": "FAILURE", "reason": "the install script failed"},
    )
    view = finished(service, stack)
    assert (view.action, view.status) == ("CREATE", "FAILED")
    assert "the install script failed" in view.status_reason


def test_a_wait_with_too_few_signals_times_out(service: Orchestrator) -> None:
    stack = create(service, count=2, timeout=3)
    run_curl(handle_attribute(service, stack, "curl_cli"), {"status": "SUCCESS"})
    view = finished(service, stack)
    assert (view.action, view.status) == ("CREATE", "FAILED")
    assert "1 of 2 received" in view.status_reason


def test_a_bad_signal_is_refused_with_a_clear_error(service: Orchestrator) -> None:
    stack = create(service, count=1)
    answer = run_curl(handle_attribute(service, stack, "curl_cli"), {"status": "MAYBE"})
    assert " 400 " in answer.splitlines()[0], answer
    assert "Metadata format invalid" in answer
