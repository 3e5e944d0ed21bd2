"""``thermik-engine`` as a process logs through oslo.log as thermik.conf says.

The log file named in a config directory gets the engine's lines; Alembic, which migrates the
embedded database on the first start, stays quiet at INFO.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

THERMIK_ENGINE = Path(sys.executable).with_name("thermik-engine")


def wait_for(path: Path, text: str, process: subprocess.Popen[str], timeout: float = 60) -> str:
    """The log once ``text`` is in it (the test fails if ``process`` ends first)."""
    deadline = time.monotonic() + timeout
    while True:
        logged = path.read_text(encoding="utf-8") if path.exists() else ""
        if text in logged:
            return logged
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, f"no {text!r} in {path}: {logged}"
        time.sleep(0.1)


def test_the_engine_logs_to_the_configured_file_with_alembic_quiet(tmp_path: Path) -> None:
    config_dir = tmp_path / "etc"
    config_dir.mkdir()
    log_file = tmp_path / "engine.log"
    (config_dir / "thermik.conf").write_text(
        f"[DEFAULT]\nstate_dir = {tmp_path / 'state'}\nlog_file = {log_file}\n",
        encoding="utf-8",
    )
    engine = subprocess.Popen(
        [str(THERMIK_ENGINE), "--config-dir", str(config_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(log_file, "Engine running", engine)
        engine.send_signal(signal.SIGTERM)
        out, err = engine.communicate(timeout=30)
    finally:
        if engine.poll() is None:
            engine.kill()
            engine.communicate()
    assert engine.returncode == 0, err
    logged = log_file.read_text(encoding="utf-8")
    assert "Engine stopped" in logged
    assert " INFO thermik.engine " in logged
    assert "alembic" not in logged
    assert (tmp_path / "state" / "thermik.sqlite").exists()
    assert out == ""
