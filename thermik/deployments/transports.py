"""Which transport a server or deployment really gets from this engine (pure).

An engine delivers through one backend, which implements one ``software_config_transport``
(``POLL_TEMP_URL`` for builtin, swift and fakeswift, ``ZAQAR_MESSAGE`` for zaqar) and one
``signal_transport`` (``TEMP_URL_SIGNAL`` or ``ZAQAR_SIGNAL``). Heat's defaults name transports
Thermik has no API for: ``POLL_SERVER_CFN``/``POLL_SERVER_HEAT`` and ``CFN_SIGNAL`` mean "the
configured default" (``[delivery] default_*_transport``), or the backend's own when the default
is not one it offers. ``HEAT_SIGNAL`` (signals through the REST API) and ``NO_SIGNAL`` need no
backend. Anything else the backend does not offer is an error naming both.

A server that asks for ``POLL_SERVER_HEAT`` with the credentials of a stack user of its own
(an ``OS::Nova::Server`` of an engine with a stack user domain) really gets it: its agent
polls the REST API (:func:`polls_api`), and the HEAT_SIGNAL deployments to it signal with
those credentials (:func:`heat_signal_inputs`).

Such a server (any whose agent logs in to Keystone) may also ask for ``ZAQAR_MESSAGE``, and its
deployments for ``ZAQAR_SIGNAL``, from an engine whose backend offers no Zaqar: when the engine
reaches Zaqar through Keystone's catalog, the queues are the agent's own
(:func:`zaqar_as_agent`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from thermik.errors import PluginError

CONFIG_ALIASES = frozenset({"POLL_SERVER_CFN", "POLL_SERVER_HEAT"})
SIGNAL_ALIASES = frozenset({"CFN_SIGNAL"})
HEAT_SIGNAL, NO_SIGNAL = "HEAT_SIGNAL", "NO_SIGNAL"
BACKENDLESS_SIGNALS = frozenset({HEAT_SIGNAL, NO_SIGNAL})
POLL_SERVER_HEAT = "POLL_SERVER_HEAT"
ZAQAR_MESSAGE, ZAQAR_SIGNAL = "ZAQAR_MESSAGE", "ZAQAR_SIGNAL"
#: What an agent logs in to Keystone with.
_LOGIN_KEYS = ("auth_url", "user_id", "password", "project_id")
#: heat-config-notify's HEAT_SIGNAL inputs, from the agent's collector settings.
_HEAT_SIGNAL_INPUTS = {
    "auth_url": "deploy_auth_url",
    "user_id": "deploy_user_id",
    "password": "deploy_password",
    "project_id": "deploy_project_id",
    "region_name": "deploy_region_name",
}


def polls_api(requested: str, credentials: Mapping[str, Any]) -> bool:
    """Whether a server asking for ``requested`` with ``credentials`` polls the REST API:
    POLL_SERVER_HEAT with a stack user's credentials and the resource they read."""
    return requested == POLL_SERVER_HEAT and bool(
        credentials.get("user_id") and credentials.get("stack_id")
    )


def zaqar_as_agent(
    requested: str, offered: str, agent_settings: Mapping[str, Any], catalog_zaqar: bool
) -> bool:
    """Whether ``requested`` (``ZAQAR_MESSAGE`` of a server, ``ZAQAR_SIGNAL`` of a deployment)
    goes through the agent's own Zaqar queues: the backend does not offer it (``offered``), the
    engine reaches Zaqar through the catalog, and ``agent_settings`` (the server's agent
    credentials, or its collector's settings) log in to Keystone."""
    return (
        requested in (ZAQAR_MESSAGE, ZAQAR_SIGNAL)
        and requested != offered
        and catalog_zaqar
        and all(agent_settings.get(key) for key in _LOGIN_KEYS)
    )


def heat_signal_inputs(agent_settings: Mapping[str, Any]) -> dict[str, str]:
    """The HEAT_SIGNAL inputs of a deployment to a server whose agent logs in to Keystone with
    ``agent_settings`` (its ``heat`` or ``zaqar`` collector's); none when it does not."""
    if not (agent_settings.get("user_id") and agent_settings.get("password")):
        return {}
    return {
        name: str(agent_settings[key])
        for key, name in _HEAT_SIGNAL_INPUTS.items()
        if agent_settings.get(key)
    }


def config_transport(requested: str, default: str, offered: str, backend: str) -> str:
    """The ``software_config_transport`` a server gets.

    Raises:
        PluginError: ``requested`` is a transport the backend does not implement.
    """
    chosen = requested
    if chosen in CONFIG_ALIASES:
        chosen = default if default == offered else offered
    if chosen != offered:
        raise PluginError(
            f"software_config_transport {requested} is not offered: the {backend} delivery "
            f"backend serves {offered}"
        )
    return chosen


def signal_transport(requested: str, default: str, offered: str, backend: str) -> str:
    """The ``signal_transport`` a deployment gets.

    Raises:
        PluginError: ``requested`` is a transport the backend does not implement.
    """
    chosen = requested
    if chosen in SIGNAL_ALIASES:
        servable = default == offered or default in BACKENDLESS_SIGNALS
        chosen = default if servable else offered
    if chosen not in BACKENDLESS_SIGNALS and chosen != offered:
        raise PluginError(
            f"signal_transport {requested} is not offered: the {backend} delivery backend "
            f"takes {offered} (or use HEAT_SIGNAL or NO_SIGNAL)"
        )
    return chosen
