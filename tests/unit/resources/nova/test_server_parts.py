"""The pure parts of OS::Nova::Server: network and block device checks, what Nova is sent,
and how a server's status reads."""

from __future__ import annotations

import types
from typing import Any

import pytest

from thermik.errors import PluginError, PropertyError
from thermik.resources.nova import network_updates, server_steps
from thermik.resources.nova.block_devices import nova_block_devices, validate_block_devices
from thermik.resources.nova.networks import first_address, nova_networks, validate_networks
from thermik.resources.nova.server_body import encoded, serialized_metadata, user_tags
from thermik.resources.plugin import PollAfter, Progress


def _server(**fields: Any) -> Any:
    return types.SimpleNamespace(**{"task_state": None, "fault": None, **fields})


@pytest.mark.parametrize(
    ("networks", "groups", "where"),
    [
        ([{"fixed_ip": "10.0.0.3"}], [], ("properties", "networks", 0)),
        (
            [{"allocate_network": "none", "network": "n"}],
            [],
            ("properties", "networks", 0, "allocate_network"),
        ),
        (
            [{"allocate_network": "auto"}, {"network": "n"}],
            [],
            ("properties", "networks", 0, "allocate_network"),
        ),
        (
            [{"port": "p", "fixed_ip": "10.0.0.3"}],
            [],
            ("properties", "networks", 0, "fixed_ip"),
        ),
        (
            [{"network": "n", "floating_ip": "f"}],
            [],
            ("properties", "networks", 0, "floating_ip"),
        ),
        ([{"port": "p"}], ["default"], ("properties", "security_groups")),
    ],
)
def test_bad_networks_are_refused_naming_the_entry(
    networks: list[dict[str, Any]], groups: list[str], where: tuple[Any, ...]
) -> None:
    with pytest.raises(PropertyError) as raised:
        validate_networks(networks, groups)
    assert raised.value.path == where


def test_good_networks_pass() -> None:
    validate_networks(
        [{"network": "n", "fixed_ip": "10.0.0.3"}, {"subnet": "s", "floating_ip": "f"}],
        ["default"],
    )
    validate_networks([{"allocate_network": "none"}], [])


@pytest.mark.parametrize("networks", [None, []], ids=["absent", "empty"])
def test_a_server_without_networks_asks_nova_for_the_projects_own(networks: Any) -> None:
    # Microversion 2.1's default; from 2.37 on Nova refuses a request without networks.
    assert nova_networks(types.SimpleNamespace(), networks, None) == "auto"  # type: ignore[arg-type]


def test_block_devices_need_one_source_and_something_to_boot() -> None:
    with pytest.raises(PropertyError) as raised:
        validate_block_devices({"flavor": "f"})
    assert raised.value.path == ("properties", "image")
    with pytest.raises(PropertyError):
        validate_block_devices({"block_device_mapping_v2": [{"volume_id": "v", "image": "i"}]})
    with pytest.raises(PropertyError):
        validate_block_devices({"block_device_mapping": [{"device_name": "vda"}], "image": "i"})
    validate_block_devices({"block_device_mapping_v2": [{"volume_id": "v"}]})
    validate_block_devices({"image": "i", "block_device_mapping_v2": [{"swap_size": 512}]})


def test_block_devices_become_novas_v2_mappings() -> None:
    assert nova_block_devices(
        {"block_device_mapping": [{"device_name": "vda", "volume_id": "v", "volume_size": 2}]},
        str,
    ) == [
        {
            "source_type": "volume",
            "destination_type": "volume",
            "uuid": "v",
            "device_name": "vda",
            "boot_index": 0,
            "volume_size": 2,
        }
    ]
    assert nova_block_devices(
        {"block_device_mapping_v2": [{"image": "cirros", "volume_size": 1}]},
        lambda name: f"id-of-{name}",
    ) == [
        {
            "uuid": "id-of-cirros",
            "source_type": "image",
            "destination_type": "volume",
            "boot_index": 0,
            "delete_on_termination": False,
            "volume_size": 1,
        }
    ]
    swap = nova_block_devices({"block_device_mapping_v2": [{"swap_size": 64}]}, str)
    assert swap is not None
    assert swap[0]["guest_format"] == "swap"
    assert nova_block_devices({}, str) is None


def test_what_nova_is_sent() -> None:
    assert serialized_metadata({"a": "b", "n": {"x": 1}}) == {"a": "b", "n": '{"x": 1}'}
    assert encoded("#!/bin/sh\n") == "IyEvYmluL3NoCg=="
    assert encoded("") is None
    with pytest.raises(PropertyError):
        encoded("x" * 60000)
    assert user_tags(_server(tags=["blue", "thermik-s-1"])) == ["blue"]


def test_statuses_and_faults_read_as_heat_says_them() -> None:
    assert server_steps.active(_server(status="ACTIVE"))
    assert not server_steps.active(_server(status="BUILD"))
    assert not server_steps.active(_server(status="ACTIVE", task_state="spawning"))
    fault = {"message": "No valid host was found. ", "code": 500}
    with pytest.raises(PluginError) as raised:
        server_steps.active(_server(status="ERROR", fault=fault))
    assert str(raised.value) == (
        'Went to status ERROR due to "Message: No valid host was found. , Code: 500"'
    )
    with pytest.raises(PluginError):
        server_steps.active(_server(status="DELETED"))


def test_the_first_look_waits_without_asking_nova() -> None:
    waited = server_steps.later(Progress({}))
    assert waited == PollAfter(server_steps.FIRST_POLL, Progress({"polls": 1}))
    later = server_steps.later(Progress({"polls": 9}))
    assert later.seconds == server_steps.MAX_POLL


def test_first_address_is_the_last_networks_first() -> None:
    server = _server(addresses={"a": [{"addr": "10.0.0.1"}], "b": [{"addr": "10.1.0.1"}]})
    assert first_address(server) == "10.1.0.1"
    assert first_address(_server(addresses={})) == ""


def test_networks_change_in_place_unless_an_entry_is_new_in_kind() -> None:
    # Which interfaces are kept needs the cloud's answers (the entries completed with their
    # ports): tests/functional/cloud/test_nova_server_networks.py.
    old: list[dict[str, Any]] = [{"network": "a", "port": None}, {"port": "p"}]
    new = [{"port": "p"}, {"network": "b"}]
    assert network_updates.in_place(old, new)
    assert not network_updates.in_place(None, new)
    assert not network_updates.in_place(old, [{"allocate_network": "auto"}])
