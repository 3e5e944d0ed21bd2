"""Configuration: the committed sample is current and Settings are typed and complete."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from oslo_config import cfg

from thermik.conf import opts, settings

ROOT = Path(__file__).resolve().parents[3]


def test_sample_config_is_current(tmp_path: Path) -> None:
    out = tmp_path / "thermik.conf.sample"
    generator = Path(sys.executable).with_name("oslo-config-generator")
    subprocess.run(
        [
            str(generator),
            "--config-file",
            str(ROOT / "etc" / "thermik" / "oslo-config-generator.conf"),
            "--output-file",
            str(out),
        ],
        check=True,
    )
    committed = (ROOT / "etc" / "thermik" / "thermik.conf.sample").read_text()
    assert out.read_text() == committed, "run `tox -e genconfig` and commit the sample"


def test_settings_from_defaults_use_sqlite_under_state_dir(tmp_path: Path) -> None:
    conf = cfg.ConfigOpts()
    opts.register_opts(conf)
    conf(args=[], default_config_files=[], default_config_dirs=[])
    conf.set_override("state_dir", str(tmp_path))
    built = settings.Settings.from_conf(conf)
    assert built.database.connection == f"sqlite:///{tmp_path}/thermik.sqlite"
    assert built.engine.max_concurrent_resources == 64
    assert built.api.bind_port == 8204


def test_settings_read_a_config_file(tmp_path: Path) -> None:
    conf_file = tmp_path / "thermik.conf"
    conf_file.write_text(
        "[database]\nconnection = postgresql+psycopg://u@h/db\n[engine]\nlease_seconds = 7\n"
    )
    built = settings.load(config_files=[str(conf_file)])
    assert built.database.connection == "postgresql+psycopg://u@h/db"
    assert built.engine.lease_seconds == 7


def test_every_option_has_a_settings_field() -> None:
    groups = {
        None: settings.LimitSettings,
        "database": settings.DatabaseSettings,
        "engine": settings.EngineSettings,
        "delivery": settings.DeliverySettings,
        "swift": settings.SwiftSettings,
        "zaqar": settings.ZaqarSettings,
        "api": settings.ApiSettings,
    }
    top_level = {"state_dir", "auth_encryption_key"}
    for group, group_opts in opts.GROUPS.items():
        names = {f for f in groups[group].__dataclass_fields__}
        for opt in group_opts:
            if group is None and opt.dest in top_level:
                continue
            assert opt.dest in names, f"[{group or 'DEFAULT'}] {opt.dest} has no Settings field"


def test_the_function_budget_follows_the_template_size_unless_set(tmp_path: Path) -> None:
    conf_file = tmp_path / "thermik.conf"
    conf_file.write_text("[DEFAULT]\nmax_template_size = 1000\n")
    budget = settings.load(config_files=[str(conf_file)]).limits.function_budget()
    assert (budget.max_value_size, budget.max_depth, budget.max_work) == (1000, 32, 32_000)
    conf_file.write_text(
        "[DEFAULT]\nmax_template_size = 1000\nmax_function_value_size = 300\n"
        "max_function_depth = 7\nmax_function_work = 5000\n"
    )
    budget = settings.load(config_files=[str(conf_file)]).limits.function_budget()
    assert (budget.max_value_size, budget.max_depth, budget.max_work) == (300, 7, 5000)
