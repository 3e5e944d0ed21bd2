"""The one cloud client layer: openstacksdk connections per credential, shared by threads, every
call's failures mapped to Thermik's error tree, retried with backoff and counted (DESIGN §7).

Resource plugins never import openstacksdk's errors or build connections: they receive a
:class:`CloudClient` from a :class:`ClientPool`.
"""

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
