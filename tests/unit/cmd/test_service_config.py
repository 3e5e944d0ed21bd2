"""The service commands find their configuration as OpenStack services do (oslo.config)."""

from __future__ import annotations

from pathlib import Path

import pytest

from thermik.cmd import api, manage


def test_default_discovery_reads_the_users_thermik_conf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ~/.thermik/thermik.conf comes first in oslo.config's search, before /etc/thermik.
    monkeypatch.setenv("HOME", str(tmp_path))
    found = tmp_path / ".thermik" / "thermik.conf"
    found.parent.mkdir()
    found.write_text("[api]\nbind_port = 9321\n")
    conf = api.load_conf([])
    assert conf.config_file == [str(found)]
    assert conf.api.bind_port == 9321


def test_a_config_dir_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config_dir = tmp_path / "thermik.conf.d"
    config_dir.mkdir()
    (config_dir / "10-state.conf").write_text(f"[DEFAULT]\nstate_dir = {tmp_path / 'state'}\n")
    assert manage.main(["--config-dir", str(config_dir), "db", "sync"]) == 0
    assert str(tmp_path / "state" / "thermik.sqlite") in capsys.readouterr().out
