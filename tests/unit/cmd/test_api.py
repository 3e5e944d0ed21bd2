"""The ``thermik-api`` console script: arguments and configuration errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from thermik.cmd import api


def test_arguments(tmp_path: Path) -> None:
    conf_file = tmp_path / "thermik.conf"
    conf_file.write_text("[api]\nbind_port = 9123\n")
    conf = api.load_conf(
        ["--bind-host", "::1", "--bind-port", "9", "--config-file", str(conf_file)]
    )
    assert (conf.cli_bind_host, conf.cli_bind_port, conf.config_file) == (
        "::1",
        9,
        [str(conf_file)],
    )
    assert conf.api.bind_port == 9123


def test_config_file_is_read(tmp_path: Path) -> None:
    conf_file = tmp_path / "thermik.conf"
    conf_file.write_text("[api]\nbind_port = 9123\nauth_strategy = keystone\nthreads = 3\n")
    conf = api.load_conf(["--config-file", str(conf_file)])
    assert conf.api.bind_port == 9123
    assert conf.api.auth_strategy == "keystone"
    assert conf.api.threads == 3


def test_missing_config_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert api.main(["--config-file", str(tmp_path / "missing.conf")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("thermik-api: ")
    assert "missing.conf" in err
    assert "Traceback" not in err


def test_service_mode_without_a_transport_url_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conf_file = tmp_path / "thermik.conf"
    conf_file.write_text(
        f"[DEFAULT]\nstate_dir = {tmp_path / 'state'}\n[api]\nengine = rpc\nbind_port = 0\n"
    )
    assert api.main(["--config-file", str(conf_file)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("thermik-api: service mode needs [DEFAULT] transport_url")
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ("[api]\nworkers = 2\n", "thermik-api: [api] workers = 2 needs [api] engine = rpc"),
        ("[api]\nworkers = 2\nengine = rpc\n", "thermik-api: service mode needs [DEFAULT]"),
    ],
)
def test_several_workers_need_service_mode_and_a_transport(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], settings: str, expected: str
) -> None:
    conf_file = tmp_path / "thermik.conf"
    conf_file.write_text(f"[DEFAULT]\nstate_dir = {tmp_path / 'state'}\n{settings}bind_port = 0\n")
    assert api.main(["--config-file", str(conf_file)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(expected), err
    assert "Traceback" not in err
