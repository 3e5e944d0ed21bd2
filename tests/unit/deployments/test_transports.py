"""Which transport a server or deployment gets from an engine's one delivery backend."""

from __future__ import annotations

import pytest

from thermik.deployments.transports import config_transport, signal_transport, zaqar_as_agent
from thermik.errors import PluginError


@pytest.mark.parametrize(
    ("requested", "default", "offered", "chosen"),
    [
        ("POLL_TEMP_URL", "POLL_TEMP_URL", "POLL_TEMP_URL", "POLL_TEMP_URL"),
        ("POLL_SERVER_CFN", "POLL_TEMP_URL", "POLL_TEMP_URL", "POLL_TEMP_URL"),
        ("POLL_SERVER_HEAT", "POLL_TEMP_URL", "POLL_TEMP_URL", "POLL_TEMP_URL"),
        ("POLL_SERVER_CFN", "POLL_TEMP_URL", "ZAQAR_MESSAGE", "ZAQAR_MESSAGE"),
        ("POLL_SERVER_CFN", "POLL_SERVER_HEAT", "POLL_TEMP_URL", "POLL_TEMP_URL"),
        ("ZAQAR_MESSAGE", "POLL_TEMP_URL", "ZAQAR_MESSAGE", "ZAQAR_MESSAGE"),
    ],
)
def test_config_transports(requested: str, default: str, offered: str, chosen: str) -> None:
    assert config_transport(requested, default, offered, "b") == chosen


def test_an_explicit_config_transport_the_backend_lacks_is_refused() -> None:
    with pytest.raises(PluginError) as info:
        config_transport("ZAQAR_MESSAGE", "POLL_TEMP_URL", "POLL_TEMP_URL", "builtin")
    assert str(info.value) == (
        "software_config_transport ZAQAR_MESSAGE is not offered: the builtin delivery backend "
        "serves POLL_TEMP_URL"
    )


@pytest.mark.parametrize(
    ("requested", "default", "offered", "chosen"),
    [
        ("TEMP_URL_SIGNAL", "TEMP_URL_SIGNAL", "TEMP_URL_SIGNAL", "TEMP_URL_SIGNAL"),
        ("CFN_SIGNAL", "TEMP_URL_SIGNAL", "TEMP_URL_SIGNAL", "TEMP_URL_SIGNAL"),
        ("CFN_SIGNAL", "HEAT_SIGNAL", "TEMP_URL_SIGNAL", "HEAT_SIGNAL"),
        ("CFN_SIGNAL", "TEMP_URL_SIGNAL", "ZAQAR_SIGNAL", "ZAQAR_SIGNAL"),
        ("CFN_SIGNAL", "CFN_SIGNAL", "TEMP_URL_SIGNAL", "TEMP_URL_SIGNAL"),
        ("HEAT_SIGNAL", "TEMP_URL_SIGNAL", "ZAQAR_SIGNAL", "HEAT_SIGNAL"),
        ("NO_SIGNAL", "TEMP_URL_SIGNAL", "TEMP_URL_SIGNAL", "NO_SIGNAL"),
    ],
)
def test_signal_transports(requested: str, default: str, offered: str, chosen: str) -> None:
    assert signal_transport(requested, default, offered, "b") == chosen


def test_an_explicit_signal_transport_the_backend_lacks_is_refused() -> None:
    with pytest.raises(PluginError, match="ZAQAR_SIGNAL is not offered: the swift delivery"):
        signal_transport("ZAQAR_SIGNAL", "TEMP_URL_SIGNAL", "TEMP_URL_SIGNAL", "swift")


AGENT = {"auth_url": "http://ks", "user_id": "u", "password": "p", "project_id": "pr"}


@pytest.mark.parametrize(
    ("requested", "offered", "agent", "catalog", "as_agent"),
    [
        ("ZAQAR_MESSAGE", "POLL_TEMP_URL", AGENT, True, True),
        ("ZAQAR_SIGNAL", "TEMP_URL_SIGNAL", AGENT, True, True),
        # the configured backend is a Zaqar: it serves the transport itself
        ("ZAQAR_MESSAGE", "ZAQAR_MESSAGE", AGENT, True, False),
        ("ZAQAR_SIGNAL", "ZAQAR_SIGNAL", AGENT, True, False),
        # no Zaqar in reach, or an agent that cannot log in to Keystone
        ("ZAQAR_SIGNAL", "TEMP_URL_SIGNAL", AGENT, False, False),
        ("ZAQAR_SIGNAL", "TEMP_URL_SIGNAL", {**AGENT, "password": ""}, True, False),
        ("ZAQAR_MESSAGE", "POLL_TEMP_URL", {"metadata_url": "http://x"}, True, False),
        # other transports never go through the agent's queues
        ("TEMP_URL_SIGNAL", "ZAQAR_SIGNAL", AGENT, True, False),
        ("HEAT_SIGNAL", "TEMP_URL_SIGNAL", AGENT, True, False),
    ],
)
def test_zaqar_transports_go_through_the_agents_queues_only_where_the_backend_lacks_them(
    requested: str, offered: str, agent: dict[str, str], catalog: bool, as_agent: bool
) -> None:
    assert zaqar_as_agent(requested, offered, agent, catalog) is as_agent
