"""The ``thermik`` CLI as a client of a Heat v1 REST API: a remote Thermik or Heat service
(``--os-endpoint``, ``--remote``) or the state directory's engine daemon.
:class:`RemoteOrchestrator` offers the CLI's commands what an engine in the command offers,
over a :class:`thermik.clients.heat_wire.HeatTransport`."""

from thermik.remote.service import RemoteOrchestrator

__all__ = ["RemoteOrchestrator"]
