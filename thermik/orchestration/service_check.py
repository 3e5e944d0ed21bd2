"""The check that a template's resource types find their services in the caller's catalog.

As Heat does before it validates a resource's properties: a type whose service (Heat's client:
``neutron``, ``octavia``) has no endpoint in the catalog of the caller's token is refused with
Heat's ``HEAT-E99001`` error, which a template validate request may ignore
(``ignore_errors=99001``); the types the engine implements itself need no service.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection

from thermik.errors import CloudError, ResourceTypeUnavailable
from thermik.resources.service_types import service_of


@dataclasses.dataclass(frozen=True)
class ServiceCheck:
    """``offers`` answers whether the caller's catalog lists a service type; ``ignored``
    are the error codes the caller asked to ignore."""

    offers: Callable[[str], bool]
    ignored: Collection[str] = ()

    def check(self, type_name: str, implementation: str, resource: str | None = None) -> None:
        """Raise :class:`ResourceTypeUnavailable` unless resource ``resource`` (of type
        ``type_name``, implemented by plugin type ``implementation``; no resource when the
        type alone is asked about) finds its service, or the caller ignores that error."""
        if ResourceTypeUnavailable.error_code in self.ignored:
            return
        need = service_of(implementation)
        if need is None:
            return
        try:
            if any(self.offers(service_type) for service_type in need.service_types):
                return
            reason = need.reason()
        except CloudError as exc:
            reason = exc.message
        raise ResourceTypeUnavailable(
            f"HEAT-E{ResourceTypeUnavailable.error_code} Service {need.client} is not "
            f"available for resource type {type_name}, reason: {reason}",
            path=() if resource is None else ("resources", resource),
            resource=resource,
        )


def service_check(
    offers: Callable[[str], bool] | None, ignore_errors: Collection[str] = ()
) -> ServiceCheck | None:
    """The check of one request; ``None`` (nothing checked) without a cloud."""
    return None if offers is None else ServiceCheck(offers, frozenset(ignore_errors))
