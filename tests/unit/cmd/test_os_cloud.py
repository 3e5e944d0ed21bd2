"""--os-cloud, $OS_CLOUD and the OS_* variables choose the cloud of local mode."""

from __future__ import annotations

from pathlib import Path

from thermik.cmd.cli import with_cloud
from thermik.conf.settings import ENVIRONMENT_CLOUD, Settings


def test_a_named_cloud_is_used(tmp_path: Path) -> None:
    settings = with_cloud(Settings.embedded(tmp_path), "mycloud", {})
    assert settings.clients.cloud == "mycloud"


def test_os_auth_url_alone_means_the_environment_variables(tmp_path: Path) -> None:
    settings = with_cloud(Settings.embedded(tmp_path), None, {"OS_AUTH_URL": "http://k/v3"})
    assert settings.clients.cloud == ENVIRONMENT_CLOUD


def test_nothing_given_keeps_the_configuration(tmp_path: Path) -> None:
    assert with_cloud(Settings.embedded(tmp_path), None, {}).clients.cloud is None


def test_the_clouds_yaml_of_os_client_config_file_is_used(tmp_path: Path) -> None:
    environ = {"OS_CLIENT_CONFIG_FILE": "/etc/x/clouds.yaml"}
    settings = with_cloud(Settings.embedded(tmp_path), "c", environ)
    assert settings.clients.cloud_config_file == "/etc/x/clouds.yaml"
