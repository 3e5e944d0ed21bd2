"""The installed ``thermik`` console script in a subprocess, as a user runs it."""

from __future__ import annotations

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
