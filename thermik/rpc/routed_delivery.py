"""The builtin delivery in an engine-less ``thermik-api`` worker (service mode).

Every worker serves the capability URLs from the database (the backend keeps its documents
and signals there), so several workers behave as one: a server's metadata GET and its
signal may reach any of them. What an engine learns in-process when it serves the URLs
itself travels over RPC instead: a wait condition handle's or a resource's signal goes to
the engine driving the stack (a call: the agent's POST is answered once it was handled), and
a deployment's signal, once stored, is announced to every engine (a fanout cast; the one
driving the deployment reads it at once, the others ignore it, and a lost cast is made up
for by the deployment's own poll of the store).
"""

from __future__ import annotations

from typing import Any

from thermik.delivery.base import SignalEndpoint
from thermik.delivery.resource_signals import signal_through
from thermik.rpc import api
from thermik.rpc.client import EngineClient, RoutedRuntime


def route_delivery(backend: Any, runtime: RoutedRuntime, engines: EngineClient) -> None:
    """Wire ``backend`` (a builtin backend over the database) to the engines."""
    signal_through(backend, runtime.signal)
    signals = getattr(backend, "add_signal_listener", None)
    if callable(signals):

        def announce(endpoint: SignalEndpoint) -> None:
            engines.cast(None, api.SIGNALLED, fanout=True, path=endpoint.locator["path"])

        signals(announce)
