"""The engines' RPC API: its version, the methods and what each carries.

The version follows oslo.messaging's rules: a minor bump adds a method or an optional
argument (a client of 1.x talks to every server of 1.y with y >= x), a major bump breaks.
Version history:

* 1.0: ``create``, ``converge``, ``cancel``, ``signal``, ``deployments_changed``.
* 1.1: ``signalled`` (a builtin delivery signal was stored by an API worker; cast to every
  engine), ``wake`` (a child stack ended on another engine; cast to the parent's engine).
"""

from __future__ import annotations

from typing import Final

#: The RPC API version the client asks for and the endpoint serves.
VERSION: Final = "1.1"
#: oslo.messaging's namespace of the endpoint (so other endpoints could share the topic).
NAMESPACE: Final = "thermik.engine"

CREATE: Final = "create"
CONVERGE: Final = "converge"
CANCEL: Final = "cancel"
SIGNAL: Final = "signal"
DEPLOYMENTS_CHANGED: Final = "deployments_changed"
#: Casts (no answer), new in 1.1.
SIGNALLED: Final = "signalled"
WAKE: Final = "wake"
#: The versions the client asks for: the calls of 1.0 (so it still talks to engines of 1.0
#: during a rolling upgrade), the casts of 1.1.
CALLS_VERSION: Final = "1.0"
CASTS_VERSION: Final = "1.1"

#: The key of a successful answer's value, and of a refusal's error (one of the two is set).
RESULT: Final = "result"
ERROR: Final = "error"
