"""Service mode's message bus, from configuration: the RPC transport of ``[DEFAULT]
transport_url`` and the notifier of ``[oslo_messaging_notifications]``.

``thermik-engine`` and ``thermik-api`` are the composition roots that call these. Without
``transport_url`` there is no message bus (the embedded and local modes), rather than
oslo.messaging's default of a broker on localhost.
"""

from __future__ import annotations

import importlib
import socket

from oslo_config import cfg

from thermik.errors import ConfigError
from thermik.rpc import messaging_opts, oslo_messaging
from thermik.rpc.notifications import StackNotifier

#: oslo.messaging's option groups registered on the global CONF only: (module, group), the
#: module's list of options being named as the group.
_GLOBAL_ONLY = (
    ("oslo_messaging._tracing.client", "oslo_messaging_tracing"),
    ("oslo_messaging._metrics.client", "oslo_messaging_metrics"),
)


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register oslo.messaging's options on ``conf``; ``transport_url`` unset by default
    (oslo.messaging's own default is a broker on localhost)."""
    for group, options in messaging_opts.list_opts():
        conf.register_opts(list(options), group=group)
    # oslo.messaging registers its tracing and metrics options on the global CONF only, yet
    # reads them from the transport's configuration on every call.
    for module, group in _GLOBAL_ONLY:
        options = getattr(importlib.import_module(module), group, None)
        if options is not None:
            conf.register_opts(options, group=group)
    conf.set_default("transport_url", None)


def _notifier(conf: cfg.ConfigOpts) -> oslo_messaging.Notifier | None:
    """The notifier ``conf`` configures, publishing as Heat does (``orchestration.<host>``);
    None when it has no driver (its transport released)."""
    transport = oslo_messaging.get_notification_transport(conf)
    built = oslo_messaging.Notifier(
        transport, publisher_id=f"orchestration.{socket.gethostname()}"
    )
    if not built.is_enabled():
        transport.cleanup()
        return None
    return built


def transport_url(conf: cfg.ConfigOpts) -> str | None:
    """``[DEFAULT] transport_url``, or None when it is not set."""
    register_opts(conf)
    url: str | None = conf.transport_url
    return url or None


def rpc_transport(conf: cfg.ConfigOpts) -> oslo_messaging.Transport:
    """The RPC transport of ``[DEFAULT] transport_url``.

    Raises:
        ConfigError: it is not set, or oslo.messaging cannot use it.
    """
    if transport_url(conf) is None:
        raise ConfigError(
            "service mode needs [DEFAULT] transport_url (e.g. rabbit://user:password@host:5672/)"
        )
    try:
        return oslo_messaging.get_rpc_transport(conf)
    except (oslo_messaging.InvalidTransportURL, oslo_messaging.DriverLoadFailure) as exc:
        raise ConfigError(f"[DEFAULT] transport_url cannot be used: {exc}") from None


def stack_notifier(conf: cfg.ConfigOpts) -> StackNotifier | None:
    """Heat's stack notifications as ``[oslo_messaging_notifications]`` configures them
    (driver, topics, its own transport_url), or None without a message bus or a driver."""
    if transport_url(conf) is None and not conf.oslo_messaging_notifications.transport_url:
        return None
    notifier = _notifier(conf)
    if notifier is None:
        return None
    return StackNotifier(notifier, notifier.transport.cleanup)
