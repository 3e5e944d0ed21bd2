"""The URLs a resource hands out for others to signal it (Heat's ``alarm_url`` and
``signal_url`` of a scaling policy).

Offered by the engine's software deployment services (``ctx.software``) when its delivery
backend serves signed URLs (the builtin one); ``None`` otherwise.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from thermik.resources.context import ResourceContext


@runtime_checkable
class SignalUrls(Protocol):
    """Where a resource can be signalled from outside the engine."""

    def resource_signal_url(self, stack_id: str, resource_name: str) -> str | None:
        """A signed URL that signals the resource when POSTed to, without credentials
        (``None``: the delivery backend serves none)."""
        ...

    def public_url(self, path: str) -> str | None:
        """``path`` under the public URL of the REST API serving the engine, else of the
        engine's own signal server (``None``: neither is known)."""
        ...


def signal_urls(ctx: ResourceContext) -> SignalUrls | None:
    """The signal URL services on ``ctx``, if the engine offers them."""
    services = getattr(ctx, "software", None)
    return services if isinstance(services, SignalUrls) else None
