"""The devstack plugin's phases, run by the harness (devstack itself needs systemd): the files
they write, read with Thermik's real options, and the commands they issue."""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg
from oslo_log import log
from sqlalchemy.engine import make_url

from tests.unit.devstack.harness import PASSWORD, ROOT, Devstack
from thermik.cmd import messaging
from thermik.conf import opts
from thermik.conf.settings import Settings

PLUGIN_FILES = [ROOT / "devstack" / name for name in ("plugin.sh", "settings", "lib/thermik")]
#: heat-tempest-plugin 3.0.0's options (tools/realparts/requirements/tempest.txt pins it).
HEAT_TEMPEST_OPTIONS = {
    "service_available": {"heat"},
    "heat_features_enabled": {"stack_cancel", "multi_cloud"},
    "heat_plugin": {
        "catalog_type",
        "username",
        "password",
        "admin_username",
        "admin_password",
        "project_name",
        "admin_project_name",
        "auth_url",
        "auth_version",
        "user_domain_name",
        "project_domain_name",
        "user_domain_id",
        "project_domain_id",
        "region",
        "endpoint_type",
        "instance_type",
        "minimal_instance_type",
        "image_ref",
        "keypair_name",
        "minimal_image_ref",
        "disable_ssl_certificate_validation",
        "ca_file",
        "build_interval",
        "build_timeout",
        "network_for_ssh",
        "fixed_network_name",
        "floating_network_name",
        "boot_config_env",
        "fixed_subnet_name",
        "ssh_timeout",
        "ip_version_for_ssh",
        "ssh_channel_timeout",
        "skip_scenario_tests",
        "skip_functional_tests",
        "skip_functional_test_list",
        "skip_scenario_test_list",
        "skip_test_stack_action_list",
        "convergence_engine_enabled",
        "volume_size",
        "connectivity_timeout",
        "heat_config_notify_script",
        "hidden_stack_tag",
        "credential_secret_id",
        "dns_servers",
        "vm_to_heat_api_insecure",
    },
}
SECTION = re.compile(r"^\[(?P<name>[^\]]+)\]$")


def sections(path: Path) -> dict[str, dict[str, str]]:
    """The options of an ini file by section, as written."""
    found: dict[str, dict[str, str]] = {}
    current: dict[str, str] = {}
    for line in path.read_text().splitlines():
        match = SECTION.match(line.strip())
        if match:
            current = found.setdefault(match["name"], {})
        elif "=" in line and not line.lstrip().startswith("#"):
            key, value = line.split("=", 1)
            current[key.strip()] = value.strip()
    return found


def service_conf(path: Path) -> cfg.ConfigOpts:
    """``path`` read as thermik-api and thermik-engine read it: Thermik's, oslo.log's,
    oslo.messaging's and keystonemiddleware's options."""
    with warnings.catch_warnings():
        # webob, which keystonemiddleware imports, imports the deprecated cgi module.
        warnings.simplefilter("ignore", DeprecationWarning)
        from keystonemiddleware.auth_token import _opts as authtoken_opts
    conf = cfg.ConfigOpts()
    opts.register_opts(conf)
    messaging.register_opts(conf)
    log.register_options(conf)
    for group, options in authtoken_opts.list_opts():
        conf.register_opts(list(options), group=group)
    ks_loading.register_auth_conf_options(conf, "keystone_authtoken")
    conf.register_opts(
        ks_loading.get_auth_plugin_conf_options("password"), group="keystone_authtoken"
    )
    conf(args=["--config-file", str(path)], project="thermik", default_config_files=[])
    return conf


def known_options(conf: cfg.ConfigOpts, group: str) -> set[str]:
    """The names ``conf`` knows in ``group`` (deprecated names too)."""
    group_opts = conf._opts if group == "DEFAULT" else conf._groups[group]._opts
    names = set(group_opts)
    for entry in group_opts.values():
        names |= {old.name for old in entry["opt"].deprecated_opts if old.name}
    return names


@pytest.fixture
def devstack(tmp_path: Path) -> Devstack:
    """A harness devstack with every Thermik service, MySQL, RabbitMQ, Swift and tempest."""
    return Devstack(tmp_path)


@pytest.fixture
def stacked(devstack: Devstack) -> Iterator[Devstack]:
    """``devstack`` after every stack phase."""
    devstack.stack()
    return devstack


def test_plugin_files_are_valid_bash() -> None:
    for path in PLUGIN_FILES:
        done = subprocess.run(
            ["bash", "-n", str(path)], check=False, capture_output=True, text=True
        )
        assert done.returncode == 0, f"{path}: {done.stderr}"


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
def test_plugin_files_pass_shellcheck() -> None:
    # SC1090/SC1091: the files devstack sources are not in this checkout.
    done = subprocess.run(
        ["shellcheck", "-s", "bash", "-e", "SC1090,SC1091", *map(str, PLUGIN_FILES)],
        check=False,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout


def test_every_option_of_thermik_conf_is_one_thermik_reads(stacked: Devstack) -> None:
    conf = service_conf(stacked.thermik_conf)
    for group, values in sections(stacked.thermik_conf).items():
        unknown = set(values) - known_options(conf, group)
        assert not unknown, f"[{group}] options no Thermik service reads: {sorted(unknown)}"
        for name in values:
            # Reading a value converts it: a value of the wrong type or choice raises here.
            getattr(conf, name) if group == "DEFAULT" else getattr(conf[group], name)
    settings = Settings.from_conf(conf)
    assert settings.api.engine == "rpc"
    assert settings.api.auth_strategy == "keystone"
    assert settings.delivery.backend == "swift"


def test_thermik_conf_is_service_mode_behind_keystone(stacked: Devstack) -> None:
    conf = service_conf(stacked.thermik_conf)
    assert conf.transport_url == f"rabbit://stackrabbit:{PASSWORD}@192.0.2.10:5672/"
    assert conf.oslo_messaging_notifications.driver == ["messagingv2"]
    assert conf.deferred_auth_method == "trusts"
    assert conf.stack_user_domain_id == "d0ma1n"
    assert conf.stack_domain_admin == "thermik_domain_admin"
    assert conf.stack_domain_admin_password == PASSWORD
    assert conf.heat_stack_user_role == "heat_stack_user"
    assert conf.keystone_authtoken.username == "thermik"
    assert conf.keystone_authtoken.www_authenticate_uri == "http://192.0.2.10/identity"
    assert (conf.trustee.auth_type, conf.trustee.username) == ("password", "thermik")
    assert conf.trustee.auth_url == "http://192.0.2.10/identity"
    assert conf.clients_keystone.auth_uri == "http://192.0.2.10/identity"
    url = make_url(conf.database.connection)
    assert (url.drivername, url.database, url.query["charset"]) == (
        "mysql+pymysql",
        "thermik",
        "utf8mb4",
    )
    assert stacked.calls("iniset_rpc_backend")[0][1:] == [
        "thermik",
        str(stacked.thermik_conf),
        "DEFAULT",
    ]


def test_the_real_thermik_manage_reads_the_written_conf(stacked: Devstack, tmp_path: Path) -> None:
    # The same file with the database on SQLite: db sync parses all of it and migrates.
    text = stacked.thermik_conf.read_text()
    text = re.sub(
        r"^connection = .*$",
        f"connection = sqlite:///{tmp_path}/t.sqlite",
        text,
        count=1,
        flags=re.M,
    )
    conf = tmp_path / "sqlite.conf"
    conf.write_text(text)
    manage = Path(sys.executable).parent / "thermik-manage"
    done = subprocess.run(
        [str(manage), "--config-file", str(conf), "db", "sync"],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "schema revision" in done.stdout


def test_setup_domain_is_called_as_thermik_manage_parses_it(
    stacked: Devstack, tmp_path: Path
) -> None:
    (call,) = [c for c in stacked.calls("thermik-manage") if "setup-domain" in c]
    assert call[call.index("--os-cloud") + 1] == "devstack-admin"
    assert call[call.index("--stack-domain-admin-password") + 1] == PASSWORD
    # Against no cloud at all: an error about the cloud (1), not about the arguments (2).
    clouds = tmp_path / "clouds.yaml"
    clouds.write_text("clouds: {}\n")
    args = [a if a != str(stacked.thermik_conf) else "/dev/null" for a in call[1:]]
    done = subprocess.run(
        [str(Path(sys.executable).parent / "thermik-manage"), *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        env={"OS_CLIENT_CONFIG_FILE": str(clouds), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert done.returncode == 1, done.stderr
    assert "devstack-admin" in done.stderr


def test_thermik_api_runs_under_uwsgi_behind_apache(stacked: Devstack) -> None:
    uwsgi = sections(stacked.uwsgi_conf)["uwsgi"]
    module, attribute = uwsgi["module"].split(":")
    assert callable(getattr(importlib.import_module(module), attribute))
    assert uwsgi["env"] == f"THERMIK_CONFIG_FILE={stacked.thermik_conf}"
    assert uwsgi["processes"] == "2"
    assert uwsgi["threads"] == "4"
    assert stacked.calls("write_uwsgi_config") == [
        [
            "write_uwsgi_config",
            str(stacked.uwsgi_conf),
            "thermik.cmd.api:application",
            "/orchestration",
            "",
            "thermik-api",
        ]
    ]


def test_processes_accounts_and_database(stacked: Devstack) -> None:
    conf = str(stacked.thermik_conf)
    assert stacked.calls("run_process") == [
        ["run_process", "thermik-engine", f"{stacked.bin}/thermik-engine --config-file {conf}"],
        ["run_process", "thermik-api", f"{stacked.bin}/uwsgi --ini {stacked.uwsgi_conf}", ""],
    ]
    assert stacked.calls("create_service_user") == [["create_service_user", "thermik", "admin"]]
    assert stacked.calls("get_or_create_service")[0][1:3] == ["thermik", "orchestration"]
    assert stacked.calls("get_or_create_endpoint") == [
        [
            "get_or_create_endpoint",
            "orchestration",
            "RegionOne",
            "http://192.0.2.10/orchestration/v1/$(project_id)s",
        ]
    ]
    assert stacked.calls("get_or_create_role") == [["get_or_create_role", "heat_stack_user"]]
    assert stacked.calls("recreate_database") == [["recreate_database", "thermik"]]
    assert ["thermik-manage", "--config-file", conf, "db", "sync"] in stacked.calls()
    assert stacked.calls("setup_develop") == [
        ["setup_develop", f"{stacked.variables['DEST']}/thermik", "mysql"]
    ]


def test_tempest_conf_has_heat_tempest_plugins_options(stacked: Devstack) -> None:
    written = sections(stacked.tempest_conf)
    for group, values in written.items():
        unknown = set(values) - HEAT_TEMPEST_OPTIONS.get(group, set())
        assert not unknown, f"[{group}] not heat-tempest-plugin options: {sorted(unknown)}"
    assert written["service_available"]["heat"] == "True"
    plugin = written["heat_plugin"]
    assert (plugin["username"], plugin["project_name"], plugin["password"]) == (
        "demo",
        "demo",
        PASSWORD,
    )
    assert plugin["auth_url"] == "http://192.0.2.10/identity"
    assert plugin["instance_type"] == "m1.heat_int"
    assert (stacked.calls("openstack")[1][:6]) == [
        "openstack",
        "--os-cloud",
        "devstack-admin",
        "flavor",
        "create",
        "m1.heat_int",
    ]


def test_postgresql_gets_the_psycopg_driver(devstack: Devstack) -> None:
    devstack.variables.update(DATABASE_TYPE="postgresql", BASE_SQL_CONN="postgresql://root:pw@db")
    devstack.stack()
    url = make_url(service_conf(devstack.thermik_conf).database.connection)
    assert (url.drivername, url.database) == ("postgresql+psycopg", "thermik")
    assert devstack.calls("setup_develop")[0][2] == "postgresql"


def test_without_thermik_engine_the_api_runs_the_one_engine(devstack: Devstack) -> None:
    devstack.variables.update(DISABLED_SERVICES="thermik-engine", RABBIT_HOST="")
    devstack.variables["ENABLED_SERVICES"] = "key,mysql"
    devstack.stack()
    conf = service_conf(devstack.thermik_conf)
    assert conf.api.engine == "embedded"
    assert conf.transport_url is None
    # One process: each would run an engine of its own.
    assert sections(devstack.uwsgi_conf)["uwsgi"]["processes"] == "1"


def test_thermik_engine_without_rabbitmq_is_refused(devstack: Devstack) -> None:
    devstack.variables.update(ENABLED_SERVICES="key,mysql", RABBIT_HOST="")
    done = devstack.run("stack", "post-config")
    assert done.returncode == 1
    assert "thermik-engine needs RabbitMQ" in done.stderr


def test_builtin_delivery_without_swift_or_zaqar(devstack: Devstack) -> None:
    devstack.variables["ENABLED_SERVICES"] = "key,mysql,rabbit"
    devstack.stack()
    conf = service_conf(devstack.thermik_conf)
    assert conf.delivery.backend == "builtin"
    assert conf.delivery.public_url == "http://192.0.2.10:8205"
    assert not devstack.tempest_conf.exists()


def test_unstack_stops_and_clean_removes(stacked: Devstack) -> None:
    stacked.forget_calls()
    assert stacked.run("unstack").returncode == 0
    assert stacked.calls("stop_process") == [
        ["stop_process", "thermik-api"],
        ["stop_process", "thermik-engine"],
    ]
    assert stacked.thermik_conf.exists()
    assert stacked.run("clean").returncode == 0
    assert not stacked.thermik_conf.parent.exists()
    assert not (Path(stacked.variables["DATA_DIR"]) / "thermik").exists()
    assert ["remove_uwsgi_config", str(stacked.uwsgi_conf), "thermik-api"] in stacked.calls()


def test_a_devstack_without_thermik_is_left_alone(devstack: Devstack) -> None:
    devstack.variables["DISABLED_SERVICES"] = "thermik-api,thermik-engine"
    for phase in ("install", "post-config", "extra", "test-config"):
        assert devstack.run("stack", phase).returncode == 0
    assert devstack.run("clean").returncode == 0
    assert devstack.calls() == []
    assert not devstack.thermik_conf.parent.exists()


def test_heat_tempest_options_are_the_plugins() -> None:
    found = sorted(ROOT.glob(".venv-tempest/lib/python3*/site-packages/heat_tempest_plugin"))
    if not found:
        pytest.skip("no .venv-tempest with heat-tempest-plugin (tools/tempest-run.sh makes it)")
    spec = importlib.util.spec_from_file_location("heat_tempest_config", found[0] / "config.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert {
        "service_available": {o.name for o in module.ServiceAvailableGroup},
        "heat_plugin": {o.name for o in module.HeatGroup},
        "heat_features_enabled": {o.name for o in module.HeatFeaturesGroup},
    } == HEAT_TEMPEST_OPTIONS


#: What Apache's mod_proxy_uwsgi hands the application for the endpoint's path.
BEHIND_APACHE = """
import io, json, sys
from thermik.cmd.api import application
answer = {}
environ = {"REQUEST_METHOD": "GET", "SCRIPT_NAME": sys.argv[1], "PATH_INFO": "/",
           "QUERY_STRING": "", "SERVER_NAME": "192.0.2.10", "SERVER_PORT": "80",
           "HTTP_HOST": "192.0.2.10", "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.url_scheme": "http",
           "wsgi.input": io.BytesIO(), "wsgi.errors": sys.stderr}
body = b"".join(application(environ, lambda status, headers, exc=None: answer.update(s=status)))
print(json.loads(body)["versions"][0]["links"][0]["href"])
"""


def test_the_uwsgi_application_answers_under_the_endpoints_path(tmp_path: Path) -> None:
    # The application the uWSGI file names, as Apache reaches it at THERMIK_API_PATH (here on
    # the embedded engine and noauth: the path, not the engine, is under test).
    conf = tmp_path / "thermik.conf"
    conf.write_text(f"[DEFAULT]\nstate_dir = {tmp_path}\n[api]\nauth_strategy = noauth\n")
    done = subprocess.run(
        [sys.executable, "-c", BEHIND_APACHE, "/orchestration"],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "THERMIK_CONFIG_FILE": str(conf)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "http://192.0.2.10/orchestration/v1/"
