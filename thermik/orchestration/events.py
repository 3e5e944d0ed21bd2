"""Events of stacks, stack-level ones included, paged by marker as Heat pages them.

A plain listing (no filters, no nested stacks) is paged by the store; filtered or nested
listings are filtered here first, then paged the same way: events strictly after ``marker``
in the requested direction, at most ``limit``.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence

from thermik.api.boundary import EventQuery, EventView, RequestContext, SortDir, StackIdentity
from thermik.errors import InvalidRequest, NotFound
from thermik.orchestration.base import Base
from thermik.orchestration.resources import resource_missing
from thermik.orchestration.versions import current_resources
from thermik.orchestration.views import event_view
from thermik.persistence.resource_values import EventQuery as StoreEventQuery
from thermik.persistence.values import Stack

_FIELDS: dict[str, Callable[[EventView], Sequence[str]]] = {
    "resource_action": lambda e: (e.action,),
    "resource_status": lambda e: (e.status, f"{e.action}_{e.status}"),
    "resource_name": lambda e: (e.resource_name,),
    "resource_type": lambda e: (e.resource_type,),
    "physical_resource_id": lambda e: (e.physical_resource_id or "",),
    "id": lambda e: (e.id,),
}


def _matches(event: EventView, filters: Mapping[str, tuple[str, ...]]) -> bool:
    for key, wanted in filters.items():
        field = _FIELDS.get(key)
        if field is not None and not set(field(event)) & set(wanted):
            return False
    return True


def page(events: list[EventView], marker: str | None, limit: int | None) -> list[EventView]:
    """The events strictly after ``marker``, at most ``limit``."""
    if marker is not None:
        ids = [event.id for event in events]
        if marker not in ids:
            raise InvalidRequest(f"marker {marker} is not an event of this stack")
        events = events[ids.index(marker) + 1 :]
    return events if limit is None else events[:limit]


class EventOperations(Base):
    """The event entry points."""

    def _tree(self, stack: Stack, depth: int) -> list[Stack]:
        if depth <= 0:
            return [stack]
        tree = self.store.list_stack_tree(stack.root_id)
        found, level = [stack], [stack]
        for _ in range(depth):
            ids = {s.id for s in level}
            level = [s for s in tree if s.owner_id in ids]
            found.extend(level)
        return found

    def _all_events(self, stacks: list[Stack], root: Stack, query: EventQuery) -> list[EventView]:
        timed: list[tuple[datetime.datetime, EventView]] = []
        for stack in stacks:
            stored = self.store.list_events(
                StoreEventQuery(stack.id, resource_name=query.resource_name)
            )
            timed.extend(
                (event.created_at, event_view(event, stack, root=root)) for event in stored
            )
        # A stable sort keeps each stack's own append order among events of the same instant.
        timed.sort(key=lambda pair: pair[0])
        events = [view for _, view in timed]
        if query.sort_dir is SortDir.DESC:
            events.reverse()
        return [event for event in events if _matches(event, query.filters)]

    def list_events(
        self, ctx: RequestContext, stack: StackIdentity, query: EventQuery
    ) -> Sequence[EventView]:
        row = self.find_stack(ctx, stack)
        stacks = self._tree(row, query.nested_depth)
        if len(stacks) > 1 or query.filters:
            events = page(self._all_events(stacks, row, query), query.marker, query.limit)
        else:
            stored = self.store.list_events(
                StoreEventQuery(
                    row.id,
                    marker=query.marker,
                    limit=query.limit,
                    sort_dir="desc" if query.sort_dir is SortDir.DESC else "asc",
                    resource_name=query.resource_name,
                )
            )
            events = [event_view(event, row) for event in stored]
        missing = query.resource_name is not None and not events and query.marker is None
        if missing and query.resource_name not in current_resources(self.store, row):
            raise resource_missing(str(query.resource_name), row)
        return events

    def show_event(
        self, ctx: RequestContext, stack: StackIdentity, resource_name: str, event_id: str
    ) -> EventView:
        row = self.find_stack(ctx, stack)
        stored = self.store.list_events(StoreEventQuery(row.id, resource_name=resource_name))
        for event in stored:
            if event.id == event_id:
                return event_view(event, row)
        raise NotFound(f"The Event ({event_id}) could not be found.")
