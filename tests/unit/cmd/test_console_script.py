"""The installed ``thermik`` console script in a subprocess, as a user runs it."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from tests.unit.cmd.cli_support import config_file, run_script, write_project


def test_script_create_show_update_delete(tmp_path: Path) -> None:
    template = write_project(tmp_path / "project")
    config = config_file(tmp_path)
    cwd = template.parent
    created = run_script(config, "stack", "create", "-t", "stack.yaml", "--wait", "app", cwd=cwd)
    assert created.status == 0, created.err
    assert "[app]: CREATE_COMPLETE" in created.err
    shown = run_script(config, "stack", "show", "app", "-f", "json", cwd=cwd).json()
    assert shown["stack_status"] == "CREATE_COMPLETE"
    assert {o["output_key"]: o["output_value"] for o in shown["outputs"]} == {
        "echo": "hello",
        "note": "from a file",
    }
    updated = run_script(
        config,
        "stack",
        "update",
        "app",
        "-t",
        "stack.yaml",
        "--parameter",
        "word=bye",
        "--wait",
        "-f",
        "json",
        cwd=cwd,
    )
    assert updated.status == 0, updated.err
    assert {o["output_key"]: o["output_value"] for o in updated.json()["outputs"]}["echo"] == "bye"
    deleted = run_script(config, "stack", "delete", "-y", "--wait", "app", cwd=cwd)
    assert deleted.status == 0, deleted.err
    listed = run_script(config, "stack", "list", "-f", "json", cwd=cwd)
    assert listed.json() == []


def test_script_bad_input_is_one_line(tmp_path: Path) -> None:
    config = config_file(tmp_path)
    (tmp_path / "bad.yaml").write_text("heat_template_version: 2018-08-31\nresources: [x\n")
    failed = run_script(config, "stack", "create", "-t", "bad.yaml", "x", cwd=tmp_path)
    assert failed.status == 1
    assert failed.err.startswith("ERROR: bad.yaml: ")
    assert len(failed.err.splitlines()) == 1
    missing = run_script(config, "stack", "delete", "-y", "ghost", cwd=tmp_path)
    assert missing.status == 1
    assert "ERROR: The Stack (ghost) could not be found." in missing.err
    assert "Traceback" not in missing.err


SLOW = """\
heat_template_version: 2018-08-31
resources:
  slow:
    type: OS::Heat::TestResource
    properties:
      action_wait_secs: {create: 30}
"""


def test_ctrl_c_while_waiting_leaves_a_recorded_stack(tmp_path: Path) -> None:
    config = config_file(tmp_path)
    (tmp_path / "slow.yaml").write_text(SLOW, encoding="utf-8")
    script = Path(sys.executable).parent / "thermik"
    command = [str(script), "--config-file", str(config), "stack", "create", "-t", "slow.yaml"]
    process = subprocess.Popen(
        [*command, "--wait", "slow"], cwd=tmp_path, stderr=subprocess.PIPE, text=True
    )
    assert process.stderr is not None
    seen = ""
    while "[slow]: CREATE_IN_PROGRESS" not in seen:
        line = process.stderr.readline()
        assert line, f"no progress before exit: {seen}"
        seen += line
    process.send_signal(signal.SIGINT)
    _, rest = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "Interrupted: stack slow stays as the engine recorded it" in rest
    assert "Traceback" not in seen + rest
    shown = run_script(config, "stack", "show", "slow", "-f", "json", cwd=tmp_path).json()
    assert shown["stack_status"] in ("CREATE_IN_PROGRESS", "CREATE_FAILED")


def test_engine_runs_until_sigterm(tmp_path: Path) -> None:
    config = config_file(tmp_path)
    engine = Path(sys.executable).parent / "thermik-engine"
    process = subprocess.Popen(
        [str(engine), "--config-file", str(config)], stderr=subprocess.PIPE, text=True
    )
    assert process.stderr is not None
    seen = ""
    while "Engine running" not in seen:
        line = process.stderr.readline()
        assert line, f"engine exited early: {seen}"
        seen += line
    process.send_signal(signal.SIGTERM)
    _, rest = process.communicate(timeout=60)
    assert process.returncode == 0, rest
    assert "Engine stopped" in rest
    assert (tmp_path / "state" / "thermik.sqlite").exists()


def test_the_engine_names_an_unusable_transport_url(tmp_path: Path) -> None:
    config = config_file(tmp_path)
    with config.open("a", encoding="utf-8") as out:
        out.write("transport_url = nosuchdriver://h:1/\n")
    engine = Path(sys.executable).parent / "thermik-engine"
    done = subprocess.run(
        [str(engine), "--config-file", str(config)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert "thermik-engine: [DEFAULT] transport_url cannot be used" in done.stderr
    assert "Traceback" not in done.stderr
