"""Service mode's messaging over oslo.messaging: the engines' versioned RPC API (a client the
API uses, a server endpoint each engine runs) and Heat's stack notifications.

Leases and engine liveness stay in the database; RPC only routes a request to the engine that
holds the stack's lease (its own server queue) or, for a stack no live engine drives, to any
engine (the shared topic). Nothing below ``thermik.rpc`` reads configuration: the composition
root hands it a transport.
"""

import warnings

with warnings.catch_warnings():
    # oslo.messaging's servers import oslo.service, whose default backend imports eventlet
    # and oslo.utils' eventletutils, which warn of their deprecation. Nothing is
    # monkey-patched: Thermik's servers run oslo.messaging's threading executor.
    warnings.simplefilter("ignore")
    import oslo_messaging
    from oslo_messaging import opts as messaging_opts

#: oslo.messaging, imported quietly: import it from here.
__all__ = ["messaging_opts", "oslo_messaging"]
