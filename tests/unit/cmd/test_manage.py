"""thermik-manage against a real SQLite file configured through a config file."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from thermik.cmd import manage
from thermik.conf.settings import DatabaseSettings
from thermik.persistence import migration
from thermik.persistence.factory import open_store
from thermik.persistence.values import NewStack


@pytest.fixture
def conf(tmp_path: Path) -> Path:
    path = tmp_path / "thermik.conf"
    path.write_text(f"[DEFAULT]\nstate_dir = {tmp_path / 'state'}\n")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = manage.main(list(argv))
    out, err = capsys.readouterr()
    return status, out.strip(), err.strip()


def test_sync_then_version(conf: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--config-file", str(conf), "db", "version")[1].startswith("none")
    status, out, _ = run(capsys, "--config-file", str(conf), "db", "sync")
    assert status == 0
    assert out.endswith(f"thermik.sqlite is at schema revision {migration.head_revision()}")
    assert run(capsys, "--config-file", str(conf), "db", "version") == (
        0,
        migration.head_revision(),
        "",
    )
    assert (conf.parent / "state" / "thermik.sqlite").exists()


def test_sync_to_an_older_revision_is_reported(
    conf: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "--config-file", str(conf), "db", "sync", "--revision", "0001_core")
    out = run(capsys, "--config-file", str(conf), "db", "version")[1]
    assert out == f"0001_core (this Thermik's schema is {migration.head_revision()})"


def test_purge_deleted(conf: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "--config-file", str(conf), "db", "sync")
    settings = DatabaseSettings(f"sqlite:///{conf.parent / 'state' / 'thermik.sqlite'}")
    ten_days_ago = datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=10)
    store = open_store(settings, None, clock=lambda: ten_days_ago)
    template_id = store.store_raw_template({"heat_template_version": "2021-04-16"}, {}, {})
    stack = store.create_stack(NewStack("old", "t1", template_id, current_traversal="T"))
    store.soft_delete_stack(stack.id, "T")
    store.close()
    args = ("--config-file", str(conf), "purge-deleted", "--age")
    assert run(capsys, *args, "11")[1] == "purged 0 stack(s) deleted more than 11 days ago"
    assert run(capsys, *args, "9")[1] == "purged 1 stack(s) deleted more than 9 days ago"


def test_purge_before_sync_says_what_to_do(conf: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "--config-file", str(conf), "purge-deleted", "--age", "1")
    assert status == 1
    assert err.startswith("thermik-manage: database sqlite:///")
    assert err.endswith("has no Thermik schema; run 'thermik-manage db sync'")


def test_bad_connection_url(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conf = tmp_path / "bad.conf"
    conf.write_text("[database]\nconnection = nonsense\n")
    status, _, err = run(capsys, "--config-file", str(conf), "db", "sync")
    assert status == 1
    assert "[database] connection: not a database URL" in err


def test_missing_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "--config-file", str(tmp_path / "nope.conf"), "db", "version")
    assert status == 1
    assert "nope.conf" in err


def test_negative_age_is_a_usage_error(conf: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        manage.main(["purge-deleted", "--age", "-1"])
    assert exit_info.value.code == 2
    assert "must not be negative" in capsys.readouterr().err
