"""tools/realparts/tempest/notify.py, the heat_config_notify_script of tempest runs: how it reads
a deployment and its result and which way it signals (the sending itself is tempest's test)."""

from __future__ import annotations

import importlib.util
import io
import json
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).parents[3] / "tools" / "realparts" / "tempest" / "notify.py"


@pytest.fixture(scope="module")
def notify() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tempest_notify", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def deployment(**inputs: str) -> dict[str, object]:
    return {"id": "cfg", "inputs": [{"name": k, "value": v} for k, v in inputs.items()]}


def test_inputs_are_read_by_name(notify: ModuleType) -> None:
    found = notify.inputs_of({"inputs": [{"name": "a", "value": 1}, {"value": 2}, "junk"]})
    assert found == {"a": 1}
    assert notify.inputs_of({}) == {}


@pytest.mark.parametrize(
    ("inputs", "transport"),
    [
        ({"deploy_signal_id": "http://signal", "deploy_signal_verb": "PUT"}, "url"),
        ({"deploy_queue_id": "q", "deploy_auth_url": "http://ks"}, "zaqar"),
        ({"deploy_auth_url": "http://ks", "deploy_stack_id": "s/1"}, "heat"),
        ({"deploy_server_id": "srv"}, "none"),
    ],
)
def test_the_inputs_choose_the_transport(
    notify: ModuleType, inputs: dict[str, str], transport: str
) -> None:
    assert notify.transport_of(notify.inputs_of(deployment(**inputs))) == transport


def test_a_result_that_is_no_json_object_is_sent_empty(notify: ModuleType) -> None:
    assert notify.read_result(io.StringIO('{"deploy_stdout": "x"}')) == {"deploy_stdout": "x"}
    assert notify.read_result(io.StringIO("not json")) == {}
    assert notify.read_result(io.StringIO("[1]")) == {}


def test_bad_invocations_fail_with_the_reason(
    notify: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert notify.main(["notify.py"], io.StringIO("{}")) == 1
    assert "usage:" in capsys.readouterr().err
    missing = tmp_path / "missing.json"
    assert notify.main(["notify.py", str(missing)], io.StringIO("{}")) == 1
    assert "cannot read the deployment" in capsys.readouterr().err


def test_a_deployment_without_a_signal_sends_nothing(
    notify: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deployment.json"
    path.write_text(json.dumps(deployment(deploy_server_id="srv")))
    assert notify.main(["notify.py", str(path)], io.StringIO("{}")) == 0
    assert "nothing sent" in capsys.readouterr().err
