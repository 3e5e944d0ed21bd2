"""Service mode's message bus, from configuration: the RPC transport of ``[DEFAULT]
transport_url`` and the notifier of ``[oslo_messaging_notifications]``.

``thermik-engine`` and ``thermik-api`` are the composition roots that call these. Without
``transport_url`` there is no message bus (the embedded and local modes), rather than
oslo.messaging's default of a broker on localhost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oslo_config import cfg

from thermik.errors import ConfigError
from thermik.rpc import bus
from thermik.rpc.notifications import StackNotifier

if TYPE_CHECKING:
    from oslo_messaging import Transport


def transport_url(conf: cfg.ConfigOpts) -> str | None:
    """``[DEFAULT] transport_url``, or None when it is not set."""
    bus.register_opts(conf)
    url: str | None = conf.transport_url
    return url or None


def rpc_transport(conf: cfg.ConfigOpts) -> Transport:
    """The RPC transport of ``[DEFAULT] transport_url``.

    Raises:
        ConfigError: it is not set, or oslo.messaging cannot use it.
    """
    if transport_url(conf) is None:
        raise ConfigError(
            "service mode needs [DEFAULT] transport_url (e.g. rabbit://user:password@host:5672/)"
        )
    try:
        return bus.rpc_transport(conf)
    except ValueError as exc:
        raise ConfigError(f"[DEFAULT] transport_url cannot be used: {exc}") from None


def stack_notifier(conf: cfg.ConfigOpts) -> StackNotifier | None:
    """Heat's stack notifications as ``[oslo_messaging_notifications]`` configures them
    (driver, topics, its own transport_url), or None without a message bus or a driver."""
    if transport_url(conf) is None and not conf.oslo_messaging_notifications.transport_url:
        return None
    notifier = bus.notifier(conf)
    if notifier is None:
        return None
    return StackNotifier(notifier, notifier.transport.cleanup)
