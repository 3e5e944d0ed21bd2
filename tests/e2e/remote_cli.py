"""The real ``thermik`` console script as a client of a remote service (``--os-endpoint``),
in its own process: what the remote mode tests share."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.unit.cmd.cli_support import Result

THERMIK = str(Path(sys.executable).parent / "thermik")


class RemoteCli:
    """``thermik --config-file C [OPTIONS] [--os-endpoint URL] ...`` in its own process, with
    only ``env`` for OS_* variables; its state directory stays unused in remote mode."""

    def __init__(
        self,
        root: Path,
        endpoint: str | None,
        options: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.options = tuple(options)
        self.state = root / "cli-state"
        self.config = root / "cli.conf"
        self.config.write_text(f"[DEFAULT]\nstate_dir = {self.state}\n", encoding="utf-8")
        self.env = {"PATH": "/usr/bin:/bin", "HOME": str(root / "home"), **(env or {})}

    def __call__(self, *args: str, endpoint: str | None = None) -> Result:
        command = [THERMIK, "--config-file", str(self.config), *self.options]
        endpoint = endpoint or self.endpoint
        command += [*(("--os-endpoint", endpoint) if endpoint else ()), *args]
        done = subprocess.run(
            command, capture_output=True, text=True, env=self.env, timeout=120, check=False
        )
        return Result(done.returncode, done.stdout, done.stderr)


def ok(result: Result) -> Result:
    """``result`` of a command that succeeded, without a traceback."""
    assert result.status == 0, result.err
    assert "Traceback" not in result.err
    return result
