"""The ``thermik-api`` console script: arguments and configuration errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from thermik.cmd import api


def test_arguments() -> None:
    args = api.parse_args(["--bind-host", "::1", "--bind-port", "9", "--config-file", "a"])
    assert (args.bind_host, args.bind_port, args.config_file) == ("::1", 9, ["a"])


def test_config_file_is_read(tmp_path: Path) -> None:
    conf_file = tmp_path / "thermik.conf"
    conf_file.write_text("[api]\nbind_port = 9123\nauth_strategy = keystone\n")
    conf = api.load_conf([str(conf_file)])
    assert conf.api.bind_port == 9123
    assert conf.api.auth_strategy == "keystone"


def test_missing_config_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert api.main(["--config-file", str(tmp_path / "missing.conf")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("thermik-api: ")
    assert "missing.conf" in err
    assert "Traceback" not in err
