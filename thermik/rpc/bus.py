"""The message bus itself: oslo.messaging's options, transports and notifier, built from the
configuration object the composition root hands in (this module reads no option itself)."""

from __future__ import annotations

import importlib
import socket

import oslo_messaging
from oslo_config import cfg
from oslo_messaging import opts as messaging_opts

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


def rpc_transport(conf: cfg.ConfigOpts) -> oslo_messaging.Transport:
    """The RPC transport ``conf`` names.

    Raises:
        ValueError: oslo.messaging cannot use it (its message says why).
    """
    try:
        return oslo_messaging.get_rpc_transport(conf)
    except (oslo_messaging.InvalidTransportURL, oslo_messaging.DriverLoadFailure) as exc:
        raise ValueError(str(exc)) from None


def notifier(conf: cfg.ConfigOpts) -> oslo_messaging.Notifier | None:
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
