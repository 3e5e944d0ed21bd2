"""Which remote service the global options name, and who calls it (``thermik.cmd.remote``)."""

from __future__ import annotations

import argparse

import pytest

from thermik.clients.heat_api import RemoteTarget
from thermik.cmd.remote import remote_target
from thermik.errors import InvalidInput

URL = "http://heat.example:8004/v1/p1"


def options(**given: object) -> argparse.Namespace:
    values: dict[str, object] = {
        "os_endpoint": None,
        "os_token": None,
        "os_cloud": None,
        "remote": False,
        "project": "local",
    }
    return argparse.Namespace(**{**values, **given})


def test_without_remote_options_the_local_engine() -> None:
    assert remote_target(options(os_cloud="mycloud"), {}) is None


def test_a_token_is_used_with_the_endpoint_whatever_the_cloud() -> None:
    target = remote_target(options(os_endpoint=URL, os_token="tok", os_cloud="c"), {})
    assert target == RemoteTarget(endpoint=URL, token="tok", project="local")


def test_the_cloud_authenticates_calls_to_the_endpoint() -> None:
    environ = {"OS_CLIENT_CONFIG_FILE": "/etc/clouds.yaml"}
    target = remote_target(options(os_endpoint=URL, os_cloud="c"), environ)
    assert target == RemoteTarget(
        endpoint=URL, cloud="c", config_file="/etc/clouds.yaml", project="local"
    )


def test_remote_takes_the_endpoint_of_the_clouds_catalog() -> None:
    target = remote_target(options(remote=True), {"OS_AUTH_URL": "http://ks/v3"}, "/c.yaml")
    assert target == RemoteTarget(cloud="envvars", config_file="/c.yaml", project="local")


def test_an_endpoint_alone_sends_no_token() -> None:
    assert remote_target(options(os_endpoint=URL), {}) == RemoteTarget(
        endpoint=URL, project="local"
    )


def test_remote_without_a_cloud_says_what_to_give() -> None:
    with pytest.raises(InvalidInput, match="--remote needs a cloud"):
        remote_target(options(remote=True), {})
