"""Events on a server resource when delivery of its metadata fails and when it recovers.

The deployments waiting for the server fail with the same reason (their own FAILED events);
these events say it on the server too, where an operator looks when an agent sees nothing.
"""

from __future__ import annotations

import logging

from thermik.delivery.messages import DeliveryReport, MetadataDeliveryFailed
from thermik.errors import ThermikError
from thermik.persistence.resource_values import NewEvent
from thermik.persistence.store import Store

LOG = logging.getLogger(__name__)


def delivery_reason(report: DeliveryReport) -> str:
    """The event reason of a delivery report."""
    if isinstance(report, MetadataDeliveryFailed):
        return f"Metadata delivery failing: {report.failure.detail}"
    return f"Metadata delivery recovered: generation {report.generation} is served"


def record_delivery(store: Store, report: DeliveryReport) -> None:
    """Append the report's event to the server's current resource (if it still has one)."""
    try:
        rows = store.find_resources_by_physical_id(report.server_id)
        live = [row for row in rows if row.action != "DELETE"]
        if not live:
            return
        row = max(live, key=lambda r: r.id)
        store.append_event(
            NewEvent(
                stack_id=row.stack_id,
                resource_name=row.name,
                resource_action=row.action,
                resource_status=row.status,
                resource_status_reason=delivery_reason(report),
                resource_type=row.resource_type,
                physical_resource_id=row.physical_resource_id,
            )
        )
    except ThermikError as error:
        LOG.warning("delivery event for server %s not recorded: %s", report.server_id, error)
    LOG.warning("server %s: %s", report.server_id, delivery_reason(report))
