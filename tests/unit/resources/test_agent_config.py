"""The os-collect-config section has Heat's shape for every transport."""

from __future__ import annotations

import pytest

from thermik.errors import PropertyError
from thermik.resources import agent_config
from thermik.resources.agent_config import (
    NOVA_DEFAULT_COLLECTORS,
    collector_of,
    heat_settings,
    occ_section,
    request_settings,
    zaqar_settings,
)

CREDENTIALS = {
    "auth_url": "http://keystone/v3",
    "user_id": "u-1",
    "password": "secret",
    "project_id": "p-1",
}


def test_poll_server_heat_section() -> None:
    settings = heat_settings(
        **CREDENTIALS, stack_id="web/5f0c", resource_name="server", region_name="RegionOne"
    )
    occ = occ_section(
        collector_of("POLL_SERVER_HEAT"), settings, default_collectors=NOVA_DEFAULT_COLLECTORS
    )
    assert occ == {
        "collectors": ["ec2", "heat", "local"],
        "heat": {
            **CREDENTIALS,
            "stack_id": "web/5f0c",
            "resource_name": "server",
            "region_name": "RegionOne",
        },
    }


def test_zaqar_section_leaves_out_an_unset_region() -> None:
    occ = occ_section(collector_of("ZAQAR_MESSAGE"), zaqar_settings(**CREDENTIALS, queue_id="q-1"))
    assert occ == {"collectors": ["zaqar", "local"], "zaqar": {**CREDENTIALS, "queue_id": "q-1"}}


def test_temp_url_section() -> None:
    occ = occ_section(collector_of("POLL_TEMP_URL"), request_settings("http://swift/o?sig=1"))
    assert occ == {
        "collectors": ["request", "local"],
        "request": {"metadata_url": "http://swift/o?sig=1"},
    }


def test_missing_credentials_are_named() -> None:
    with pytest.raises(PropertyError) as info:
        zaqar_settings(**{**CREDENTIALS, "password": ""}, queue_id="")
    assert str(info.value) == (
        "software_config_transport: ZAQAR_MESSAGE needs the server's agent credentials: "
        "password, queue_id missing"
    )
    with pytest.raises(PropertyError, match="needs a metadata URL"):
        request_settings("")


def test_unknown_transport_is_named() -> None:
    with pytest.raises(PropertyError, match="unknown software_config_transport 'PIGEON'"):
        collector_of("PIGEON")


def test_a_new_transport_nulls_what_the_server_booted_with() -> None:
    booted = occ_section("heat", {"user_id": "u", "password": "p"}, default_collectors=("ec2",))
    booted["polling_interval"] = 10
    occ = occ_section(
        "request", request_settings("http://new"), default_collectors=("ec2",), previous=booted
    )
    assert occ == {
        "collectors": ["ec2", "request", "local"],
        "heat": {"user_id": None, "password": None},
        "request": {"metadata_url": "http://new"},
        "polling_interval": 10,
    }
    assert agent_config.overriding(booted, {"collectors": ["local"]})["heat"] == {
        "user_id": None,
        "password": None,
    }
