"""Signals a handle reads from a store of its own (a Swift object's versions, a Zaqar queue):
the bodies in the order they were sent, as the signals a wait condition judges."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from thermik.errors import PluginError

SUCCESS, FAILURE = "SUCCESS", "FAILURE"


def signals_of(bodies: Iterable[Mapping[str, Any]], resource: str) -> dict[str, dict[str, Any]]:
    """The signals ``bodies`` send, oldest first, by signal id: a body's ``id``, else its
    position (from 1); a later signal with the same id replaces the earlier one.

    Raises:
        PluginError: a signal has an unknown status.
    """
    signals: dict[str, dict[str, Any]] = {}
    for number, body in enumerate(bodies, start=1):
        signal_id = str(body.get("id", number))
        signals.pop(signal_id, None)
        signals[signal_id] = {
            "data": body.get("data"),
            "reason": body.get("reason", f"Signal {signal_id} received"),
            "status": body.get("status", SUCCESS),
        }
        if signals[signal_id]["status"] not in (SUCCESS, FAILURE):
            raise PluginError(f"Unknown status: {signals[signal_id]['status']}", resource=resource)
    return signals
