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
        "rpc": settings.RpcSettings,
        "clients": settings.ClientOptions,
        **{f"clients_{name}": settings.ClientOptions for name in opts.CLIENT_SERVICES},
    }
    # Read into Settings.clients (as ClientSettings.region_name and retry_limit).
    cloud = {"region_name_for_services", "client_retry_limit", "cloud", "cloud_config_file"}
    # Read into Settings.keystone (tests/unit/conf/test_keystone_settings.py).
    identity = {opt.dest for opt in opts.IDENTITY_OPTS}
    top_level = {"state_dir", "auth_encryption_key", *cloud, *identity}
    for group, group_opts in opts.GROUPS.items():
        if group == "trustee":  # keystoneauth's options, kept as TrusteeSettings.options
            continue
        names = {f for f in groups[group].__dataclass_fields__}
        for opt in group_opts:
            if group is None and opt.dest in top_level:
                continue
            if group == "clients_keystone" and opt.dest == "auth_uri":  # KeystoneSettings
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


def test_a_clients_service_group_falls_back_to_clients(tmp_path: Path) -> None:
    conf_file = tmp_path / "thermik.conf"
    conf_file.write_text(
        "[DEFAULT]\nregion_name_for_services = RegionTwo\nclient_retry_limit = 0\n"
        "[clients]\nca_file = /etc/ssl/cloud.pem\ntimeout = 30\n"
        "[clients_nova]\nendpoint_type = internalURL\ninsecure = true\n"
    )
    clients = settings.load(config_files=[str(conf_file)]).clients
    assert (clients.region_name, clients.retry_limit) == ("RegionTwo", 0)
    nova = clients.for_service("nova")
    assert (nova.endpoint_type, nova.insecure) == ("internalURL", True)
    assert (nova.ca_file, nova.timeout) == ("/etc/ssl/cloud.pem", 30)
    neutron = clients.for_service("neutron")
    assert (neutron.endpoint_type, neutron.insecure) == ("publicURL", False)
    assert neutron.ca_file == "/etc/ssl/cloud.pem"
