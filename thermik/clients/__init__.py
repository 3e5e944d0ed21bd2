"""The one cloud client layer: openstacksdk connections per credential, shared by threads, every
call's failures mapped to Thermik's error tree, retried with backoff and counted (DESIGN §7).

Resource plugins never import openstacksdk's errors or build connections: they receive a
:class:`CloudClient` from a :class:`ClientPool`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from thermik.clients.calls import CloudClient
    from thermik.clients.counting import CallCounter
    from thermik.clients.errors import is_cloud_exception, to_cloud_error
    from thermik.clients.pool import SERVICE_TYPES, ClientPool, Credential

__all__ = [
    "SERVICE_TYPES",
    "CallCounter",
    "ClientPool",
    "CloudClient",
    "Credential",
    "is_cloud_exception",
    "to_cloud_error",
]

#: Where each name is defined. They are loaded on first use (PEP 562) because they load
#: openstacksdk (half a second), which the layer's light modules (the Heat API's wire
#: format, the local engine daemon's client) and the commands using them do not need.
_HOMES = {
    "CloudClient": "thermik.clients.calls",
    "CallCounter": "thermik.clients.counting",
    "is_cloud_exception": "thermik.clients.errors",
    "to_cloud_error": "thermik.clients.errors",
    "SERVICE_TYPES": "thermik.clients.pool",
    "ClientPool": "thermik.clients.pool",
    "Credential": "thermik.clients.pool",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
