"""The ``thermik`` CLI as a client of a remote Thermik or Heat service (``--os-endpoint``,
``--remote``): :class:`RemoteOrchestrator` offers the CLI's commands what the local engine
offers, over the service's Heat v1 REST API (:class:`thermik.clients.heat_api.HeatApi`)."""

from thermik.remote.service import RemoteOrchestrator

__all__ = ["RemoteOrchestrator"]
