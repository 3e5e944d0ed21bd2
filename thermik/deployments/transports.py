"""Which transport a server or deployment really gets from this engine (pure).

An engine delivers through one backend, which implements one ``software_config_transport``
(``POLL_TEMP_URL`` for builtin, swift and fakeswift, ``ZAQAR_MESSAGE`` for zaqar) and one
``signal_transport`` (``TEMP_URL_SIGNAL`` or ``ZAQAR_SIGNAL``). Heat's defaults name transports
Thermik has no API for: ``POLL_SERVER_CFN``/``POLL_SERVER_HEAT`` and ``CFN_SIGNAL`` mean "the
configured default" (``[delivery] default_*_transport``), or the backend's own when the default
is not one it offers. ``HEAT_SIGNAL`` (signals through the REST API) and ``NO_SIGNAL`` need no
backend. Anything else the backend does not offer is an error naming both.
"""

from __future__ import annotations

from thermik.errors import PluginError

CONFIG_ALIASES = frozenset({"POLL_SERVER_CFN", "POLL_SERVER_HEAT"})
SIGNAL_ALIASES = frozenset({"CFN_SIGNAL"})
HEAT_SIGNAL, NO_SIGNAL = "HEAT_SIGNAL", "NO_SIGNAL"
BACKENDLESS_SIGNALS = frozenset({HEAT_SIGNAL, NO_SIGNAL})


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
